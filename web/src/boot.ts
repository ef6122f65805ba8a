// How the app starts without holding up the page the gateway drew (docs/performance.md, "The first
// screen"): nothing is fetched before that page is on screen, and the app's code is evaluated a piece
// at a time, each piece a task of its own, so the browser can answer a press or draw between them.

/** The modules the page will run, named by the build in the drawn page (web/scripts/prerender.mjs). */
export const MODULES_META = 'omc-modules';

/** The next task: what follows runs after the browser has had its turn (input, a frame). */
export const nextTask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Resolves once the drawn first screen is on screen, so the app's requests never compete with the page's
 * own bytes and paint: when the browser reports the first contentful paint (it does so once the frame
 * is presented, later than the frame is made), or after the second frame where it reports no paints.
 * A page the gateway did not draw (an empty #root), and a hidden tab, which draws no frames, start at
 * once; a paint that never comes starts it after `latestMs`.
 */
export function afterFirstPaint(latestMs = 1000): Promise<void> {
  return new Promise((resolve) => {
    const drawn = Boolean(document.getElementById('root')?.dataset.shell);
    if (!drawn || document.visibilityState !== 'visible') return resolve();
    let observer: PerformanceObserver | null = null;
    let done = false;
    const go = () => {
      if (done) return;
      done = true;
      observer?.disconnect();
      resolve();
    };
    if (
      typeof PerformanceObserver === 'function' &&
      PerformanceObserver.supportedEntryTypes?.includes('paint')
    ) {
      observer = new PerformanceObserver((list) => {
        if (list.getEntriesByName('first-contentful-paint').length > 0) setTimeout(go, 0);
      });
      observer.observe({ type: 'paint', buffered: true });
    } else if (typeof requestAnimationFrame === 'function') {
      requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(go, 0)));
    }
    setTimeout(go, latestMs);
  });
}

/**
 * Fetches every module the page will run at once, in parallel, without running any: the stages below
 * then only evaluate what has arrived, instead of fetching one stage after the other.
 */
export function preloadModules(doc: Document = document): string[] {
  const listed = doc.querySelector<HTMLMetaElement>(`meta[name="${MODULES_META}"]`)?.content ?? '';
  const urls = listed.split(/\s+/).filter(Boolean);
  for (const href of urls) {
    if (doc.querySelector(`link[rel="modulepreload"][href="${href}"]`)) continue;
    const link = doc.createElement('link');
    link.rel = 'modulepreload';
    link.crossOrigin = '';
    link.href = href;
    doc.head.appendChild(link);
  }
  return urls;
}
