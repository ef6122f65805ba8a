// The app's start (docs/performance.md, "The first screen"): nothing is fetched before the drawn page is
// on screen, then every module the page names is fetched at once.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { afterFirstPaint, MODULES_META, preloadModules } from './boot';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  document.head.innerHTML = '';
  document.body.innerHTML = '';
});

const visibility = (state: DocumentVisibilityState) =>
  vi.spyOn(document, 'visibilityState', 'get').mockReturnValue(state);

/** A page as the gateway draws it (a shell in #root), or the plain one. */
function page(drawn: boolean) {
  document.body.innerHTML = drawn
    ? '<div id="root" data-shell="game"><p>0</p></div>'
    : '<div id="root"></div>';
}

/** A browser that reports paints: `paint()` reports the first contentful one. */
function reportsPaints() {
  let report: ((list: { getEntriesByName: (name: string) => unknown[] }) => void) | null = null;
  const observed: unknown[] = [];
  class Observer {
    static supportedEntryTypes = ['paint'];
    constructor(callback: typeof report) {
      report = callback;
    }
    observe(options: unknown) {
      observed.push(options);
    }
    disconnect() {
      report = null;
    }
  }
  vi.stubGlobal('PerformanceObserver', Observer);
  return {
    observed,
    paint: (name: string) => report?.({ getEntriesByName: (n) => (n === name ? [{ name }] : []) }),
  };
}

describe('afterFirstPaint', () => {
  it('waits for the browser to report the first contentful paint, then for the next task', async () => {
    vi.useFakeTimers();
    visibility('visible');
    page(true);
    const browser = reportsPaints();
    let done = false;
    void afterFirstPaint().then(() => (done = true));
    expect(browser.observed).toEqual([{ type: 'paint', buffered: true }]);
    await vi.advanceTimersByTimeAsync(500);
    browser.paint('first-paint');
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(false);
    browser.paint('first-contentful-paint');
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
  });

  it('waits for the second frame where paints are not reported', async () => {
    vi.useFakeTimers();
    visibility('visible');
    page(true);
    vi.stubGlobal('PerformanceObserver', undefined);
    const frames: FrameRequestCallback[] = [];
    vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => frames.push(cb));
    let done = false;
    void afterFirstPaint().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(0);
    frames.shift()!(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(false);
    frames.shift()!(16);
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
  });

  it('starts at once on a page the gateway did not draw, and in a hidden tab', async () => {
    reportsPaints();
    visibility('visible');
    page(false);
    await expect(afterFirstPaint()).resolves.toBeUndefined();
    visibility('hidden');
    page(true);
    await expect(afterFirstPaint()).resolves.toBeUndefined();
  });

  it('starts anyway when no paint is reported', async () => {
    vi.useFakeTimers();
    visibility('visible');
    page(true);
    reportsPaints();
    let done = false;
    void afterFirstPaint(1000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);
  });
});

describe('preloadModules', () => {
  it('fetches each module the page names once, as a module, and nothing when it names none', () => {
    expect(preloadModules()).toEqual([]);
    expect(document.querySelectorAll('link').length).toBe(0);
    const meta = document.createElement('meta');
    meta.name = MODULES_META;
    meta.content = '/assets/react-1.js /assets/start-2.js';
    document.head.appendChild(meta);
    expect(preloadModules()).toEqual(['/assets/react-1.js', '/assets/start-2.js']);
    preloadModules();
    const links = [...document.querySelectorAll<HTMLLinkElement>('link')];
    expect(links.map((l) => [l.rel, l.getAttribute('href')])).toEqual([
      ['modulepreload', '/assets/react-1.js'],
      ['modulepreload', '/assets/start-2.js'],
    ]);
  });
});
