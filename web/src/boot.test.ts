// The app's start (docs/performance.md, "The first screen"): nothing is fetched before the drawn page is
// on screen, then every module the page names is fetched at once.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { afterFirstPaint, MODULES_META, preloadModules } from './boot';

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  document.head.innerHTML = '';
});

const visibility = (state: DocumentVisibilityState) =>
  vi.spyOn(document, 'visibilityState', 'get').mockReturnValue(state);

describe('afterFirstPaint', () => {
  it('waits for the second frame after the call, then for the next task', async () => {
    vi.useFakeTimers();
    visibility('visible');
    const frames: FrameRequestCallback[] = [];
    vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => frames.push(cb));
    let done = false;
    void afterFirstPaint().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(false);
    frames.shift()!(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(false);
    frames.shift()!(16);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);
  });

  it('starts at once in a hidden tab, which draws no frames', async () => {
    visibility('hidden');
    vi.stubGlobal('requestAnimationFrame', () => 0);
    await expect(afterFirstPaint()).resolves.toBeUndefined();
  });

  it('starts anyway when no frame comes', async () => {
    vi.useFakeTimers();
    visibility('visible');
    vi.stubGlobal('requestAnimationFrame', () => 0);
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
