// Many replicas, proven: every service runs as several processes (2 auth, 3 game, 2 payments,
// 2 realtime, 2 gateways behind one round-robin balancer) over one PostgreSQL, one Redis and one NATS
// this suite starts natively, so it can stop, kill, stall and restart them by their own PIDs. Players
// click and buy through the balancer the whole time while each row of the chaos matrix does one fault;
// after each row the invariants are read from Postgres and the provider's emulator, and the matrix is
// printed: 0 lost and 0 doubled in every row, and the web app served throughout.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureWebBuilt, startSystem, type System } from '@omc/infra';
import { workspaceRoot } from '@omc/testkit';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Stores, type Service } from '../src/audit.js';
import { copyRedis, jetstreamBlocks, loseUnsyncedTail, restoreRedis, stall } from '../src/faults.js';
import { ChaosMatrix, until, type Row } from '../src/matrix.js';
import { register, sleep, Traffic, untilGameKnows, useBaseUrl, type Player } from '../src/players.js';

const ROUND_TARGET = 300;
const SIGNUP_FREE_CLICKS = 10;
const ENV = {
  ROUND_TARGET: String(ROUND_TARGET),
  MILESTONES: '10:100,50:500',
  SIGNUP_FREE_CLICKS: String(SIGNUP_FREE_CLICKS),
  RATE_LIMIT_PER_IP: '0',
  CLICK_RATE_PER_USER: '1000',
  CLICK_RATE_PER_IP: '0',
  REGISTER_MAX_PER_IP: '0',
  LOGIN_MAX_FAILURES_PER_IP: '0',
  BRAINTREE_TIMEOUT_MS: '3000',
  PAYPAL_TIMEOUT_MS: '3000',
  LOG_LEVEL: 'warn',
  OMC_INFRA: 'native',
  // Where the consumers reconcile with the producer's record (a lost event repaired), every 10 s here
  // rather than every minute, so a row settles well within SETTLE_MS.
  EVENT_RECONCILE_INTERVAL_MS: '10000',
  // An event held by a game replica that is killed goes to another after 5 s rather than 30 s, so the
  // game-kill rows do not wait out the production ack wait (the bound under test is the same: delivered
  // again once the wait is over).
  EVENT_ACK_WAIT_MS: '5000',
};
const INSTANCES = { auth: 2, game: 3, payments: 2, realtime: 2, gateway: 2 } as const;
/** How long a stalled store stays stopped (the 15 s). */
const STALL_MS = 15_000;
/** How long a row may take to settle (every purchase credited, every win paid, outboxes drained). */
const SETTLE_MS = 60_000;
/** How long a counter behind Postgres' record may last before it counts as lost (the fence's bound). */
const STALE_BOUND_MS = 5_000;
const PLAYERS = 8;
const PAUSE_MS = 150;

let system: System;
let stores: Stores;
let dir: string;
let traffic: Traffic;
let matrix: ChaosMatrix;

function replicas(): string {
  const alive = (prefix: string) =>
    system.processes.filter(
      (p) => p.deployable.name === prefix && p.child.exitCode === null && p.child.signalCode === null,
    ).length;
  return `${alive('auth')}a ${alive('game')}g ${alive('payments')}p ${alive('realtime')}r ${alive('gateway')}gw`;
}

/** Every process running and ready (each asked on its own /readyz), and every database answering. */
async function unhealthy(): Promise<string[]> {
  const problems: string[] = [];
  for (const p of system.processes) {
    if (p.child.exitCode !== null || p.child.signalCode !== null) {
      problems.push(`${p.name} not running`);
      continue;
    }
    const status = await fetch(`${p.internalUrl}/readyz`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (status !== 200) problems.push(`${p.name} /readyz ${status || 'no answer'}`);
  }
  for (const service of ['auth', 'game', 'payments'] as const)
    await stores
      .query(service, 'select 1')
      .catch((e: Error) => problems.push(`${service}'s database: ${e.message}`));
  return problems;
}

const redisUrl = () => system.infra.redisUrl;
async function killServer(name: 'redis' | 'nats'): Promise<void> {
  const pid = system.infra.pids[name]!;
  process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await sleep(50);
  }
  throw new Error(`${name} (pid ${pid}) did not die`);
}

async function flushRedis(): Promise<void> {
  await restoreRedis(redisUrl(), { keys: [] });
}

const ROWS: Row[] = [
  {
    name: 'SIGKILL a game replica mid-round',
    async fault(buy) {
      await buy();
      await system.stopProcess('game-2', 'SIGKILL');
      matrix.restarting = sleep(2000).then(() => system.restartProcess('game-2'));
    },
  },
  {
    name: 'SIGKILL a game replica mid-rebuild',
    async fault(buy) {
      await buy();
      // Redis loses everything; the next request on any replica finds it and rebuilds from Postgres,
      // and one replica dies while that happens.
      await flushRedis();
      await sleep(150);
      await system.stopProcess('game', 'SIGKILL');
      matrix.restarting = sleep(2000).then(() => system.restartProcess('game'));
    },
  },
  {
    name: 'Redis rolled back 3 s',
    async fault(buy) {
      // The copy and the pack in the same round, so the pack is one the rolled-back round must still hold.
      await matrix.nearRoundStart();
      const copy = await copyRedis(redisUrl());
      await buy(false);
      await sleep(3000);
      await restoreRedis(redisUrl(), copy);
      return `${copy.keys.length} keys put back`;
    },
  },
  {
    name: 'Redis wiped (killed, restarted empty)',
    async fault(buy) {
      await buy();
      await killServer('redis');
      for (const file of ['appendonlydir', 'dump.rdb'])
        rmSync(join(dir, 'servers', 'redis', file), { recursive: true, force: true });
      await system.infra.restartServer('redis');
    },
  },
  {
    name: `Redis stalled ${STALL_MS / 1000} s`,
    async fault(buy) {
      await buy();
      await stall(system.infra.pids.redis!, STALL_MS);
    },
  },
  {
    name: `NATS stalled ${STALL_MS / 1000} s`,
    async fault(buy) {
      await buy();
      await stall(system.infra.pids.nats!, STALL_MS);
    },
  },
  {
    name: `Postgres stalled ${STALL_MS / 1000} s`,
    async fault(buy) {
      await buy();
      await stall(system.infra.pids.postgres!, STALL_MS);
    },
  },
  {
    name: 'a lost dispute while a payments replica is killed',
    async fault(buy) {
      await buy();
      // A player's sale (not the sentinel's, whose pack the row checks) is disputed and lost; Braintree's
      // signed notification reaches the balancer while one payments replica dies. The clawback takes the
      // purchase's unspent clicks and pot share back within its bound (audit.ts).
      const sale = traffic.purchases.filter((p) => p.success && p.transactionId).at(-1);
      if (!sale) throw new Error('no player has bought anything yet');
      const emulator = system.urls.emulators!;
      const signed = (await (
        await fetch(`${emulator}/__emulator/braintree/webhooks`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ kind: 'dispute_lost', transactionId: sale.transactionId }),
        })
      ).json()) as Record<string, string>;
      await system.stopProcess('payments', 'SIGKILL');
      matrix.restarting = sleep(2000).then(() => system.restartProcess('payments'));
      let delivered = 0;
      for (let attempt = 0; attempt < 20 && delivered !== 200; attempt++) {
        delivered = await fetch(`${system.gatewayUrl}/api/payments/webhooks/braintree`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(signed).toString(),
        }).then(
          (r) => r.status,
          () => 0,
        );
        if (delivered !== 200) await sleep(500);
      }
      if (delivered !== 200) throw new Error(`the dispute notification was not taken: ${delivered}`);
      return `dispute on ${sale.transactionId}`;
    },
  },
  {
    name: 'NATS killed, unsynced tail lost',
    async fault(buy) {
      // The game's replicas are behind (paused, as a busy or stalled pod is), so the purchase's event
      // is acknowledged to payments and stored, but not yet consumed, when NATS dies and loses the tail
      // of its store it had not synced (JetStream syncs every 2 min by default).
      const store = join(dir, 'servers', 'nats', 'jetstream');
      const synced = jetstreamBlocks(store);
      const games = system.processes.filter((p) => p.deployable.name === 'game').map((p) => p.pid);
      await matrix.nearRoundStart();
      for (const pid of games) process.kill(pid, 'SIGSTOP');
      let bytes = 0;
      try {
        await buy(false);
        await until('payments to publish the purchase', async () => {
          const [row] = await stores.query<{ n: number }>(
            'payments',
            `select count(*)::int as n from outbox where published_at is null`,
          );
          return row?.n === 0;
        });
        await killServer('nats');
        bytes = loseUnsyncedTail(store, synced);
        await system.infra.restartServer('nats');
      } finally {
        for (const pid of games) process.kill(pid, 'SIGCONT');
      }
      return `${bytes} bytes of stream cut`;
    },
  },
];

beforeAll(async () => {
  const root = workspaceRoot();
  dir = join(root, '.data', `replicas-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  // The gateways serve the built web app: the row's watcher fetches it throughout.
  ensureWebBuilt(root, { stdio: 'ignore' });
  system = await startSystem({
    root,
    dir,
    instances: INSTANCES,
    // Eleven processes starting at once on two busy cores: each gets longer than the usual minute.
    readyTimeoutMs: 240_000,
    redisAppendOnly: true,
    env: ENV,
    log: () => undefined,
  });
  useBaseUrl(system.gatewayUrl);
  const databaseUrls = Object.fromEntries(
    system.processes
      .filter((p) => p.env.DATABASE_URL && ['auth', 'game', 'payments'].includes(p.name))
      .map((p) => [p.name, p.env.DATABASE_URL!]),
  ) as Record<Service, string>;
  stores = new Stores(databaseUrls, system.urls.emulators!);
  const players: Player[] = [];
  for (let i = 0; i < PLAYERS; i++) players.push(await register('player'));
  const probe = await register('probe');
  for (const p of [...players, probe]) await untilGameKnows(p);
  traffic = new Traffic(players, PAUSE_MS);
  matrix = new ChaosMatrix({
    stores,
    traffic,
    probe,
    replicas,
    roundTarget: ROUND_TARGET,
    signupFreeClicks: SIGNUP_FREE_CLICKS,
    settleMs: SETTLE_MS,
    staleBoundMs: STALE_BOUND_MS,
    unhealthy,
  });
  traffic.start();
  await sleep(3000);
});

afterAll(async () => {
  await traffic?.stop();
  await system?.stop();
});

test('the chaos matrix loses nothing and doubles nothing, with the web app served throughout', async () => {
  for (const row of ROWS) {
    await matrix.run(row);
    console.log(matrix.format());
  }
  const disputed = matrix.results.find((r) => r.row.startsWith('a lost dispute'));
  expect.soft(disputed?.clawbacks, 'the lost dispute was clawed back').toBeGreaterThan(0);
  for (const r of matrix.results) {
    expect.soft(r.lost, `${r.row}: lost`).toEqual([]);
    expect.soft(r.doubled, `${r.row}: doubled`).toEqual([]);
    expect.soft(r.unserved, `${r.row}: the web app or the winners list not served`).toBe(0);
    expect
      .soft(r.recounted, `${r.row}: clicks lost before their flush, beyond the last 2 s of clicks`)
      .toBeLessThanOrEqual(r.recountBound);
  }
});
