// `pnpm --filter @omc/bench bench:profile`: what a profile read costs the cluster, put together at the
// gateway in one hop (game, payments and auth asked at once) beside the two hops it took before (the
// gateway proxies to auth, which asks game and payments). The whole system as `npm start` runs it
// (real Postgres, Redis, NATS), a second gateway of the same code with PROFILE_IN_ONE_HOP=false in
// front of the same services; closed-loop reads of one player's profile, the two in alternation,
// each phase's CPU of every process (Postgres with its backends) divided by the reads answered.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startSystem, serviceBundle } from '@omc/infra';
import { Pool } from 'undici';
import { cpuSeconds } from './proc.js';

const root = join(import.meta.dirname, '..', '..');
const PHASE_S = Number(process.env.PROFILE_PHASE_S ?? 5);
const PAIRS = Number(process.env.PROFILE_PAIRS ?? 2);
const CONNECTIONS = Number(process.env.PROFILE_CONNECTIONS ?? 16);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => console.log(`[profile] ${line}`);

/** CPU seconds of a process and its children (PostgreSQL: one backend per connection). */
function treeCpu(pid: number): number {
  let total = cpuSeconds(pid);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) total += cpuSeconds(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(5000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await exited;
}

async function main(): Promise<void> {
  const dir = join(root, '.data', 'bench-profile');
  const system = await startSystem({
    root,
    dir,
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_IP: '0', REGISTER_MAX_PER_IP: '0', OMC_INFRA: 'native' },
    log: () => undefined,
  });
  let twoHop: ChildProcess | undefined;
  try {
    const gateway = system.processes.find((p) => p.name === 'gateway')!;
    const port = await freePort();
    const internal = await freePort();
    twoHop = spawn(process.execPath, [await serviceBundle(root, join(root, gateway.deployable.dir))], {
      cwd: join(root, gateway.deployable.dir),
      env: {
        ...gateway.env,
        PORT: String(port),
        GATEWAY_PORT: String(port),
        GATEWAY_INTERNAL_PORT: String(internal),
        INSTANCE_NAME: 'gateway-two-hops',
        PROFILE_IN_ONE_HOP: 'false',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    for (let i = 0; i < 300; i++) {
      const ok = await fetch(`http://127.0.0.1:${internal}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await sleep(200);
    }
    const twoHopUrl = `http://127.0.0.1:${port}`;
    const name = `prof_${Date.now().toString(36)}`;
    const registered = await fetch(`${system.gatewayUrl}/api/user/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: name, email: `${name}@bench.example`, password: `pw-${name}-long` }),
    });
    const { token } = (await registered.json()) as { token: string };
    // The game learns of the player by event: wait until the profile carries its balance.
    for (let i = 0; i < 100; i++) {
      const profile = (await (
        await fetch(`${system.gatewayUrl}/api/user/profile`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).json()) as { freeClicks: number | null; potEarned: number | null };
      if (profile.freeClicks !== null && profile.potEarned !== null) break;
      await sleep(200);
    }
    const pids = [
      ...system.processes.map((p) => p.pid),
      twoHop.pid!,
      ...Object.values(system.infra.pids).filter((p): p is number => typeof p === 'number'),
    ];
    const clusterCpu = () => pids.reduce((sum, pid) => sum + treeCpu(pid), 0);

    const phase = async (url: string) => {
      const pool = new Pool(url, { connections: CONNECTIONS });
      let reads = 0;
      let failed = 0;
      const cpuBefore = clusterCpu();
      const started = Date.now();
      const until = started + PHASE_S * 1000;
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (Date.now() < until) {
            const r = await pool.request({
              path: '/api/user/profile',
              method: 'GET',
              headers: { authorization: `Bearer ${token}` },
            });
            const body = (await r.body.json()) as { freeClicks?: number | null; potEarned?: number | null };
            if (r.statusCode === 200 && body.freeClicks !== null && body.potEarned !== null) reads += 1;
            else failed += 1;
          }
        }),
      );
      const seconds = (Date.now() - started) / 1000;
      const cpu = clusterCpu() - cpuBefore;
      await pool.close();
      return { reads, failed, perSecond: reads / seconds, cpuMsPerRead: (cpu * 1000) / Math.max(1, reads) };
    };

    log(`${CONNECTIONS} connections reading one player's profile, ${PHASE_S} s a phase, ${PAIRS} pairs`);
    await phase(system.gatewayUrl); // warm-up of both paths, not counted
    await phase(twoHopUrl);
    const one: Awaited<ReturnType<typeof phase>>[] = [];
    const two: Awaited<ReturnType<typeof phase>>[] = [];
    for (let i = 0; i < PAIRS; i++) {
      one.push(await phase(system.gatewayUrl));
      two.push(await phase(twoHopUrl));
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log('\n| path | reads/s | cluster CPU ms per read | incomplete answers |');
    console.log('|---|---:|---:|---:|');
    for (const [label, runs] of [
      ['one hop (gateway asks auth, game, payments at once)', one],
      ['two hops (gateway → auth → game and payments)', two],
    ] as const) {
      console.log(
        `| ${label} | ${mean(runs.map((r) => r.perSecond)).toFixed(0)} | ${mean(runs.map((r) => r.cpuMsPerRead)).toFixed(2)} | ${runs.reduce((a, r) => a + r.failed, 0)} |`,
      );
    }
    console.log(
      `\none hop / two hops: reads/s ${(mean(one.map((r) => r.perSecond)) / mean(two.map((r) => r.perSecond))).toFixed(2)}, ` +
        `CPU per read ${(mean(one.map((r) => r.cpuMsPerRead)) / mean(two.map((r) => r.cpuMsPerRead))).toFixed(2)}`,
    );
  } finally {
    if (twoHop) await stopChild(twoHop);
    await system.stop();
  }
}

await main();
