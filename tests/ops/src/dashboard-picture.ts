// k8s/monitoring/dashboard.png: the dashboard's panels drawn from a real system's Prometheus data. It starts the
// whole system on free ports with Debian's Prometheus beside it, plays for a few minutes through the
// gateway (players register, watch over sockets, click, buy clicks with the emulator's valid test nonce,
// win a short round and collect; a few sockets leave halfway), then asks Prometheus for every panel's
// query over that time, draws the panels (SVG, laid out as grafana-dashboard.json lays them out) in a
// page, and has headless Chromium photograph it. Run: pnpm --filter @omc/ops-tests run dashboard:picture
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { io, type Socket } from 'socket.io-client';
import { setPayoutEmailFromCatcher, startPrometheus, startSystem, verifyEmailFromCatcher } from '@omc/infra';
import { DASHBOARD_ROWS } from './monitoring.js';
import { ROOT } from './repo.js';

const PLAY_SECONDS = Number(process.argv[2] ?? 150);
const ROUND_TARGET = 1500;
const dir = join(ROOT, '.data', 'dashboard-picture');
const out = join(ROOT, 'k8s', 'monitoring', 'dashboard.png');

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const log = (line: string) => console.log(`[picture] ${line}`);

const system = await startSystem({
  root: ROOT,
  dir,
  persistent: false,
  ports: 'free',
  logs: 'files',
  env: {
    RATE_LIMIT_PER_IP: '0',
    ROUND_TARGET: String(ROUND_TARGET),
    SIGNUP_FREE_CLICKS: '400',
    CLICK_RATE_PER_IP: '0',
  },
  log,
});
const prometheus = await startPrometheus({
  root: ROOT,
  dir: join(dir, 'prometheus'),
  port: 'free',
  scrapeIntervalSeconds: 2,
  targets: system.processes
    .filter((p) => p.name !== 'emulators')
    .map((p) => ({ service: p.deployable.name, url: p.url })),
  log,
});
log(`system ${system.gatewayUrl}, Prometheus ${prometheus.url}`);

async function call(method: string, path: string, token?: string, body?: unknown) {
  const response = await fetch(system.gatewayUrl + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const started = Math.floor(Date.now() / 1000);
const sockets: Socket[] = [];
try {
  const players: { name: string; token: string }[] = [];
  for (let i = 0; i < 8; i++) {
    const name = `pic${randomBytes(3).toString('hex')}`;
    const answer = await call('POST', '/api/user/register', undefined, {
      username: name,
      email: `${name}@example.com`,
      password: 'picture-password-1',
    });
    players.push({ name, token: answer.body.token });
  }
  for (const p of players)
    while ((await call('GET', '/api/game/profile', p.token)).status !== 200) await sleep(200);
  for (let i = 0; i < 30; i++) {
    const player = players[i % players.length]!;
    sockets.push(
      io(system.gatewayUrl, {
        transports: ['websocket'],
        auth: i % 3 === 0 ? {} : { token: player.token },
        forceNew: true,
      }),
    );
  }
  log(`${players.length} players, ${sockets.length} sockets; playing for ${PLAY_SECONDS} s`);

  const end = Date.now() + PLAY_SECONDS * 1000;
  let tick = 0;
  let collected = false;
  while (Date.now() < end) {
    tick++;
    // Clicks: more as the minutes go by, from every player.
    const burst = 2 + Math.floor((tick / 10) % 4);
    await Promise.all(
      players.map(async (p) => {
        for (let k = 0; k < burst; k++) {
          const answer = await call('POST', '/api/game/click', p.token);
          if (answer.body?.won && !collected) {
            collected = true;
            log(`${p.name} won the round at click ${answer.body.globalClicks}`);
            void (async () => {
              for (let t = 0; t < 50; t++) {
                const profile = await call('GET', '/api/payments/profile', p.token);
                if (profile.body?.potEarned > 0) break;
                await sleep(200);
              }
              // The payout email counts once confirmed from the link mailed to the account's email.
              await setPayoutEmailFromCatcher(
                { token: p.token, email: `${p.name}@example.com` },
                `${p.name}@paypal.example.com`,
                {
                  mailUrl: system.mail!.uiUrl,
                  apiUrl: system.gatewayUrl,
                  currentPassword: 'picture-password-1',
                },
              ).catch((error: Error) => log(`payout email: ${error.message}`));
              // Collecting needs a verified email: the winner uses the link mailed at registration.
              await verifyEmailFromCatcher(`${p.name}@example.com`, {
                mailUrl: system.mail!.uiUrl,
                apiUrl: system.gatewayUrl,
              }).catch((error: Error) => log(`verify: ${error.message}`));
              log(`collect: ${(await call('POST', '/api/winners/collect', p.token)).status}`);
            })();
          }
        }
      }),
    );
    // A purchase now and then (fills the pot, shows on the money row).
    if (tick % 12 === 0) {
      const buyer = players[tick % players.length]!;
      await call('POST', '/api/payments/checkout', buyer.token, {
        paymentMethodNonce: tick % 36 === 0 ? 'fake-processor-declined-visa-nonce' : 'fake-valid-nonce',
        amount: '0.99',
        idempotencyKey: `pic_${randomBytes(8).toString('hex')}`,
      });
    }
    // Halfway, a third of the sockets leave.
    if (Date.now() > end - (PLAY_SECONDS * 1000) / 2 && sockets.length > 20)
      for (const s of sockets.splice(0, 10)) s.close();
    await sleep(500);
  }
  await sleep(6000); // the last scrapes

  // Every panel's series over the play.
  const finished = Math.floor(Date.now() / 1000);
  const query = async (expr: string) => {
    const url = `${prometheus.url}/api/v1/query_range?query=${encodeURIComponent(expr)}&start=${started}&end=${finished}&step=2`;
    const data = (await (await fetch(url)).json()) as {
      data: { result: { metric: Record<string, string>; values: [number, string][] }[] };
    };
    return data.data.result;
  };
  const rows = [];
  for (const row of DASHBOARD_ROWS) {
    const panels = [];
    for (const panel of row.panels) {
      const series = [];
      for (const [expr, legend] of panel.targets)
        for (const r of await query(expr))
          series.push({
            name: legend.replace(/\{\{(\w+)\}\}/g, (_, k: string) => r.metric[k] ?? ''),
            points: r.values.map(([t, v]) => [t, Number(v)]),
          });
      panels.push({ ...panel, series });
    }
    rows.push({ title: row.title, panels });
  }
  const html = page(rows, started, finished);
  writeFileSync(join(dir, 'dashboard.html'), html);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
    headless: true,
  });
  try {
    const tab = await browser.newPage({ viewport: { width: 1600, height: 900 }, deviceScaleFactor: 1 });
    await tab.setContent(html);
    await tab.screenshot({ path: out, fullPage: true });
  } finally {
    await browser.close();
  }
  log(`wrote ${out}`);
} finally {
  for (const s of sockets) s.close();
  await prometheus.stop();
  await system.stop();
}

function page(
  rows: {
    title: string;
    panels: { title: string; type: string; unit?: string; series: { name: string; points: number[][] }[] }[];
  }[],
  from: number,
  to: number,
): string {
  const colors = ['#73bf69', '#f2cc0c', '#5794f2', '#ff780a', '#b877d9', '#f2495c', '#8ab8ff', '#96d98d'];
  const format = (v: number, unit?: string) => {
    if (!Number.isFinite(v)) return '–';
    if (unit === 'percentunit') return `${(v * 100).toFixed(1)}%`;
    if (unit === 's') return v < 1 ? `${(v * 1000).toFixed(v < 0.01 ? 1 : 0)} ms` : `${v.toFixed(2)} s`;
    if (unit === 'currencyEUR') return `€${v.toFixed(2)}`;
    return Math.abs(v) >= 100 || Number.isInteger(v) ? String(Math.round(v)) : v.toFixed(2);
  };
  const chart = (
    panel: { unit?: string; series: { name: string; points: number[][] }[] },
    w: number,
    h: number,
  ) => {
    const values = panel.series.flatMap((s) => s.points.map((p) => p[1]!)).filter(Number.isFinite);
    const max = Math.max(...values, 0) * 1.1 || 1;
    const min = Math.min(...values, 0);
    const x = (t: number) => 44 + ((t - from) / (to - from)) * (w - 54);
    const y = (v: number) => 8 + (1 - (v - min) / (max - min)) * (h - 28);
    const grid = [0, 0.5, 1]
      .map((f) => min + f * (max - min))
      .map(
        (v) =>
          `<line x1="44" x2="${w - 10}" y1="${y(v)}" y2="${y(v)}" stroke="#2c3235"/><text x="40" y="${y(v) + 4}" fill="#8e8e8e" font-size="10" text-anchor="end">${format(v, panel.unit)}</text>`,
      )
      .join('');
    const minutes = [];
    for (let t = from; t <= to; t += 60)
      minutes.push(
        `<text x="${x(t)}" y="${h - 4}" fill="#8e8e8e" font-size="10" text-anchor="middle">${new Date(t * 1000).toISOString().slice(11, 16)}</text>`,
      );
    const lines = panel.series
      .map(
        (s, i) =>
          `<polyline fill="none" stroke="${colors[i % colors.length]}" stroke-width="1.6" points="${s.points
            .filter((p) => Number.isFinite(p[1]))
            .map((p) => `${x(p[0]!).toFixed(1)},${y(p[1]!).toFixed(1)}`)
            .join(' ')}"/>`,
      )
      .join('');
    return `<svg width="${w}" height="${h}">${grid}${minutes.join('')}${lines}</svg>`;
  };
  const unitWidth = 1560 / 24;
  const body = rows
    .map((row) => {
      const width = Math.floor(24 / row.panels.length) * unitWidth - 8;
      const panels = row.panels
        .map((panel) => {
          const legend = panel.series
            .map((s, i) => `<span style="color:${colors[i % colors.length]}">━</span> ${s.name}`)
            .join('&nbsp;&nbsp; ');
          const last = panel.series[0]?.points.at(-1)?.[1];
          const content =
            panel.type === 'stat'
              ? `<div class="stat">${last === undefined ? 'no data' : format(last, panel.unit)}</div>${chart(panel, width - 16, 90)}`
              : `${chart(panel, width - 16, 170)}<div class="legend">${legend || 'no data'}</div>`;
          return `<div class="panel" style="width:${width}px"><div class="title">${panel.title}</div>${content}</div>`;
        })
        .join('');
      return `<div class="row">${row.title}</div><div class="panels">${panels}</div>`;
    })
    .join('');
  return `<!doctype html><html><head><meta charset="utf-8"><style>
    body { background:#111217; color:#d8d9da; font: 13px system-ui, sans-serif; margin: 16px 20px; }
    h1 { font-size: 18px; font-weight: 500; margin: 0 0 4px; } .sub { color:#8e8e8e; margin-bottom: 8px; }
    .row { font-size: 15px; margin: 14px 0 6px; } .panels { display:flex; gap: 8px; }
    .panel { background:#181b1f; border:1px solid #2c3235; border-radius: 3px; padding: 6px 8px; height: 224px; overflow: hidden; }
    .title { font-weight: 500; margin-bottom: 4px; } .legend { color:#ccc; font-size: 11px; margin-top: 2px; }
    .stat { font-size: 44px; color:#73bf69; font-weight: 500; margin: 18px 0 8px 8px; }
  </style></head><body>
  <h1>One Million Clicks</h1>
  <div class="sub">Every panel of k8s/monitoring/grafana-dashboard.json, drawn from Prometheus's data of a system started on this machine (round target ${ROUND_TARGET}) while players clicked, watched, bought and collected through the gateway, ${new Date(from * 1000).toISOString().slice(0, 16)} to ${new Date(to * 1000).toISOString().slice(11, 16)} UTC.</div>
  ${body}</body></html>`;
}
