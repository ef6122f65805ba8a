// The first screen on a phone: Lighthouse (the npm package, its default mobile settings and simulated
// throttling) on Debian's Chromium, for `/`, `/game` signed in and `/winners`, served by the system's
// gateway as players get them. Nothing is downloaded: Chromium is /usr/bin/chromium, started here with
// a temporary profile and stopped with everything it started (its process group, by its PID).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import lighthouse from 'lighthouse';
import WebSocket from 'ws';
import { THROUGHPUT_ROUND_TARGET, type BenchSystem } from '../bench-system.js';
import { stopProcessGroup } from '../quiet.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';

interface LighthouseFigures {
  performance: number | null;
  firstContentfulPaintMs: number | null;
  largestContentfulPaintMs: number | null;
  totalBlockingTimeMs: number | null;
  speedIndexMs: number | null;
  javascriptBytes: number | null;
}

/** One page's figures: each the median of its runs (a shared machine's load moves single runs). */
export interface LighthousePage extends LighthouseFigures {
  path: string;
  runs: (LighthouseFigures & { loadAverage1m: number })[];
}

function median(values: (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null).sort((a, b) => a - b);
  if (known.length === 0) return null;
  const mid = Math.floor(known.length / 2);
  return known.length % 2 === 1 ? known[mid]! : (known[mid - 1]! + known[mid]!) / 2;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function waitForDevtools(port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/json/version`)).ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error('Chromium did not open its devtools port in 30 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Opens the origin in the browser's page and stores a signed-in player's session, as a sign-in does. */
async function signIn(port: number, origin: string, identity: Record<string, string>): Promise<void> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    type: string;
    webSocketDebuggerUrl: string;
  }[];
  const page = targets.find((t) => t.type === 'page');
  if (!page) throw new Error('Chromium has no page to sign in on');
  const ws = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let id = 0;
  const send = (method: string, params: object) =>
    new Promise<void>((resolve) => {
      const mine = ++id;
      const onMessage = (data: WebSocket.RawData) => {
        if ((JSON.parse(data.toString()) as { id?: number }).id !== mine) return;
        ws.off('message', onMessage);
        resolve();
      };
      ws.on('message', onMessage);
      ws.send(JSON.stringify({ id: mine, method, params }));
    });
  await send('Page.navigate', { url: `${origin}/winners` });
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const script = Object.entries(identity)
    .map(([key, value]) => `localStorage.setItem(${JSON.stringify(key)}, ${JSON.stringify(value)});`)
    .join('');
  await send('Runtime.evaluate', { expression: script });
  // Load a page with the session stored, as after a sign-in: the app writes the hints (cookies) by which
  // the gateway sends a signed-in player the game's first screen, as it does for every returning player.
  await send('Page.navigate', { url: `${origin}/winners` });
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  // The measured load starts cold, as a phone's first visit does (the run keeps storage, not the cache).
  await send('Network.clearBrowserCache', {});
  // Leave the page idle on a blank document: a run that started while the signed-in page was still
  // loading its data lost its trace (NO_NAVSTART) in one run of three.
  await send('Page.navigate', { url: 'about:blank' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  ws.close();
}

/** Past winners the winners page is measured with: a live site has a list (the API's first page is 50). */
const WINNERS_SHOWN = 20;
/** The round target while those rounds are played (above the default milestones, 10 and 50). */
const SHORT_ROUND = 60;

async function getJson(url: string): Promise<any> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

/**
 * The winners page as players see it, with past winners: when the list is shorter than WINNERS_SHOWN,
 * the game is restarted with short rounds and the load users play them out, then it gets its target back.
 */
export async function ensureWinners(bs: BenchSystem, log: (line: string) => void): Promise<void> {
  const winners = async () => ((await getJson(`${bs.gatewayUrl}/api/winners`)).winners as unknown[]).length;
  let have = await winners();
  if (have >= WINNERS_SHOWN) return;
  log(
    `[bench] lighthouse: playing ${WINNERS_SHOWN - have} rounds of ${SHORT_ROUND} clicks, so /winners has a list`,
  );
  const { gameState } = await getJson(`${bs.gatewayUrl}/api/game/state`);
  // The round under way ends SHORT_ROUND clicks from now; the ones after it are SHORT_ROUND long.
  const first = Number(gameState.globalClicks) + SHORT_ROUND;
  const click = async (token: string) =>
    (
      await fetch(`${bs.gatewayUrl}/api/game/click`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(10_000),
      })
    ).json() as Promise<{ won?: boolean }>;
  // Eight players at a time (a round's clicks past its win count toward the next one).
  const play = async (rounds: number) => {
    let won = 0;
    let i = 0;
    const lane = async () => {
      while (won < rounds && i < rounds * SHORT_ROUND * 3)
        if ((await click(bs.users[i++ % bs.users.length]!.token)).won) won++;
    };
    await Promise.all(Array.from({ length: 8 }, lane));
  };
  try {
    await bs.restartGame({ ROUND_TARGET: String(first) });
    await play(1);
    if (first !== SHORT_ROUND) await bs.restartGame({ ROUND_TARGET: String(SHORT_ROUND) });
    await play(WINNERS_SHOWN - have - 1);
  } finally {
    await bs.restartGame({ ROUND_TARGET: String(THROUGHPUT_ROUND_TARGET) });
  }
  have = await winners();
  if (have < WINNERS_SHOWN) throw new Error(`only ${have} winners after playing short rounds`);
}

/**
 * Debian's Chromium with a temporary profile and its devtools on `port`, in a process group of its own
 * so its renderers and helpers stop with it; `stop` ends the group and waits for it.
 */
function startChromium(port: number): { stop(): Promise<void> } {
  const profile = mkdtempSync(join(tmpdir(), 'omc-lighthouse-'));
  const chromium = spawn(
    CHROMIUM_PATH,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--remote-debugging-port=${port}`,
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { stdio: 'ignore', detached: true },
  );
  // Outside the run's process group, it does not hear the run's Ctrl-C: a run that exits stops it.
  const onExit = () => {
    try {
      process.kill(-chromium.pid!, 'SIGKILL');
    } catch {
      // already stopped
    }
  };
  process.once('exit', onExit);
  return {
    async stop() {
      const exited =
        chromium.exitCode !== null || chromium.signalCode !== null
          ? Promise.resolve()
          : new Promise((resolve) => chromium.once('exit', resolve));
      if (chromium.pid) await stopProcessGroup(chromium.pid);
      await exited;
      process.off('exit', onExit);
      rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

export async function measureLighthouse(
  bs: BenchSystem,
  log: (line: string) => void,
  options: { runs: number; reportsDir?: string } = { runs: 1 },
): Promise<LighthousePage[]> {
  if (options.reportsDir) mkdirSync(options.reportsDir, { recursive: true });
  await ensureWinners(bs, log);
  const port = await freePort();
  const chromium = startChromium(port);
  const pages: LighthousePage[] = [];
  try {
    await waitForDevtools(port);
    const user = bs.users[0]!;
    for (const path of ['/', '/game', '/winners']) {
      // `/` sends a signed-in player on to the game: the welcome screen is measured before signing in
      // would matter only for a visitor, so `/` is measured as a visitor in a storage-reset run.
      const visitor = path !== '/game';
      const runs: LighthousePage['runs'] = [];
      for (let run = 1; run <= options.runs; run++) {
        const measure = async () => {
          // A signed-in load starts from the player's stored session and a cold cache (signIn clears it;
          // Lighthouse keeps both when told not to reset storage). A visitor's load resets storage itself.
          if (!visitor)
            await signIn(port, bs.gatewayUrl, {
              token: user.token,
              username: user.username,
              role: 'standard',
            });
          return lighthouse(`${bs.gatewayUrl}${path}`, {
            port,
            output: 'json',
            logLevel: 'error',
            onlyCategories: ['performance'],
            disableStorageReset: !visitor,
          });
        };
        let result = await measure();
        // A run whose trace Lighthouse could not read (NO_NAVSTART, about one in ten) is run again, once.
        if (result?.lhr.runtimeError) {
          log(`[bench] lighthouse ${path} run ${run}: ${result.lhr.runtimeError.code}, run again`);
          result = await measure();
        }
        const audits = result?.lhr.audits ?? {};
        const numeric = (name: string) => audits[name]?.numericValue ?? null;
        const scripts = audits['network-requests']?.details as
          { items?: { resourceType?: string; transferSize?: number }[] } | undefined;
        if (result?.lhr.runtimeError)
          log(`[bench] lighthouse ${path} run ${run}: ${result.lhr.runtimeError.code} (no figures from it)`);
        runs.push({
          performance: result?.lhr.categories.performance?.score ?? null,
          firstContentfulPaintMs: numeric('first-contentful-paint'),
          largestContentfulPaintMs: numeric('largest-contentful-paint'),
          totalBlockingTimeMs: numeric('total-blocking-time'),
          speedIndexMs: numeric('speed-index'),
          javascriptBytes:
            scripts?.items
              ?.filter((i) => i.resourceType === 'Script')
              .reduce((sum, i) => sum + (i.transferSize ?? 0), 0) ?? null,
          loadAverage1m: loadavg()[0]!,
        });
        if (options.reportsDir && result)
          writeFileSync(
            join(options.reportsDir, `${path === '/' ? 'welcome' : path.slice(1)}-${run}.json`),
            JSON.stringify(result.lhr),
          );
      }
      const pick = (name: keyof LighthouseFigures) => median(runs.map((r) => r[name]));
      const page: LighthousePage = {
        path: visitor ? path : `${path} (signed in)`,
        performance: pick('performance'),
        firstContentfulPaintMs: pick('firstContentfulPaintMs'),
        largestContentfulPaintMs: pick('largestContentfulPaintMs'),
        totalBlockingTimeMs: pick('totalBlockingTimeMs'),
        speedIndexMs: pick('speedIndexMs'),
        javascriptBytes: pick('javascriptBytes'),
        runs,
      };
      pages.push(page);
      log(
        `[bench] lighthouse ${page.path} (median of ${runs.length}, load ${runs.map((r) => r.loadAverage1m.toFixed(1)).join('/')}): ` +
          `performance ${page.performance}, FCP ${Math.round(page.firstContentfulPaintMs ?? 0)} ms, ` +
          `LCP ${Math.round(page.largestContentfulPaintMs ?? 0)} ms, TBT ${Math.round(page.totalBlockingTimeMs ?? 0)} ms, ` +
          `Speed Index ${Math.round(page.speedIndexMs ?? 0)} ms, JavaScript ${page.javascriptBytes} bytes transferred`,
      );
    }
  } finally {
    await chromium.stop();
  }
  return pages;
}
