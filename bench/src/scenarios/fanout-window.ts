// The fan-out's measured window: clicks on a fixed schedule while the clients watch, and around them
// realtime's CPU, realtime's tick writes and the cores every process of the machine's load used.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchSystem } from '../bench-system.js';
import type { OpenLoopResult } from '../open-loop.js';
import { cpuSeconds } from '../proc.js';
import { readHistogram, type Buckets } from '../prom.js';
import type { BenchSettings } from '../settings.js';
import { readStages, type StageReading } from '../stages.js';
import type { Worker } from '../workers.js';
import type { Fleet } from './sockets.js';

export interface FanoutWindow {
  /** The click generator's result. */
  load: OpenLoopResult;
  /** Realtime's CPU seconds over the window. */
  realtimeCpu: number;
  /** Realtime's tick-write histogram before and after the window (null when unreadable). */
  writesBefore: Buckets | null;
  writesAfter: Buckets | null;
  /** Cores used by each process or group. */
  coresByProcess: Record<string, number>;
  /** Each stage of a click's way to the screen, read from the services' /metrics around the window. */
  stagesBefore: StageReading;
  stagesAfter: StageReading;
}

/** The processes whose CPU is accounted for, by group: the services, Redis and NATS, the load generators. */
function accountedProcesses(bs: BenchSystem, fleet: Fleet, clicker: Worker): Record<string, number[]> {
  const groups: Record<string, number[]> = {};
  for (const p of bs.system.processes) (groups[p.name] ??= []).push(p.pid);
  const { redis, nats } = bs.system.infra.pids;
  if (redis) groups.redis = [redis];
  if (nats) groups.nats = [nats];
  groups['socket clients'] = fleet.workers.map((w) => w.pid);
  groups['click load'] = [clicker.pid];
  return groups;
}

function cpuByGroup(groups: Record<string, number[]>): Record<string, number> {
  const seconds: Record<string, number> = {};
  for (const [name, pids] of Object.entries(groups))
    seconds[name] = pids.reduce((sum, pid) => {
      try {
        return sum + cpuSeconds(pid);
      } catch {
        return sum; // gone
      }
    }, 0);
  return seconds;
}

/** Realtime's histogram of its tick writes' wall time, or null when its /metrics cannot be read. */
async function tickWrites(url: string): Promise<Buckets | null> {
  try {
    const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) });
    return readHistogram(await response.text(), 'realtime_tick_write_seconds');
  } catch {
    return null;
  }
}

/** Marks the fleet, then clicks at `clickRate` for the fan-out's duration and waits for the last tick. */
export async function clickWhileWatching(
  bs: BenchSystem,
  settings: BenchSettings,
  fleet: Fleet,
  clicker: Worker,
  clickRate: number,
): Promise<FanoutWindow> {
  const realtime = bs.process('realtime');
  await fleet.mark();
  const groups = accountedProcesses(bs, fleet, clicker);
  const groupsBefore = cpuByGroup(groups);
  const wallBefore = Date.now();
  // Realtime's /metrics is read outside the window whose CPU is counted.
  const writesBefore = await tickWrites(realtime.internalUrl);
  const stageUrls = {
    gateway: bs.process('gateway').internalUrl,
    game: bs.process('game').internalUrl,
    realtime: realtime.internalUrl,
  };
  const stagesBefore = await readStages(stageUrls);
  const cpuBefore = cpuSeconds(realtime.pid);
  // Clicks on a fixed schedule (the open-loop generator), not in a burst at the start of each second
  // (autocannon's rate, which left most ticks of a second with no change to send).
  const load = await clicker.call<OpenLoopResult>(
    'run',
    {
      url: bs.gatewayUrl,
      tokens: bs.users.map((u) => u.token),
      rate: Math.max(1, Math.round(clickRate)),
      durationS: settings.fanoutDurationS,
      connections: settings.openLoop.connections,
      timeoutMs: 10_000,
    },
    (settings.fanoutDurationS * 4 + 70) * 1000,
  );
  // The last tick after the last click.
  await sleep(Math.ceil(1000 / settings.broadcastHz) + 200);
  const cpuAfter = cpuSeconds(realtime.pid);
  const writesAfter = await tickWrites(realtime.internalUrl);
  const groupsAfter = cpuByGroup(groups);
  const stagesAfter = await readStages(stageUrls);
  const wallSeconds = (Date.now() - wallBefore) / 1000;
  const coresByProcess: Record<string, number> = {};
  for (const name of Object.keys(groups))
    coresByProcess[name] = Math.round(((groupsAfter[name]! - groupsBefore[name]!) / wallSeconds) * 100) / 100;
  return {
    load,
    realtimeCpu: cpuAfter - cpuBefore,
    writesBefore,
    writesAfter,
    coresByProcess,
    stagesBefore,
    stagesAfter,
  };
}
