// The baseline of the fan-out's CPU per message: the same number of sockets on a bare `ws` server
// (bench/src/trivial-broadcaster.ts) that sends each of them one state frame per tick, in the same run.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchSystem } from '../bench-system.js';
import { cpuSeconds } from '../proc.js';
import type { BenchSettings } from '../settings.js';
import { ratio } from '../stats.js';
import { startWorker } from '../workers.js';
import { connectFleet } from './sockets.js';

export interface FanoutBaseline {
  connected: number;
  messagesPerSecond: number;
  cpuMicrosPerMessage: number | null;
}

/**
 * `count` sockets connected straight to the bare server, and the CPU that process used over the
 * messages the sockets received.
 */
export async function measureBaseline(
  bs: BenchSystem,
  settings: BenchSettings,
  count: number,
  log: (line: string) => void,
): Promise<FanoutBaseline> {
  const broadcaster = startWorker('trivial-broadcaster');
  try {
    const { url } = await broadcaster.call<{ url: string }>('listen');
    const fleet = await connectFleet(bs, settings, count, url);
    try {
      await broadcaster.call('start', { hz: settings.broadcastHz });
      await sleep(1000);
      await fleet.mark();
      const cpuBefore = cpuSeconds(broadcaster.pid);
      await sleep(settings.fanoutBaselineS * 1000);
      const cpu = cpuSeconds(broadcaster.pid) - cpuBefore;
      const { total } = await fleet.measure();
      const baseline: FanoutBaseline = {
        connected: fleet.connected,
        messagesPerSecond: total.messages / (total.durationMs / 1000),
        cpuMicrosPerMessage: ratio(cpu * 1e6, total.messages),
      };
      log(
        `[bench]   baseline (bare ws, ${fleet.connected} sockets): ${Math.round(baseline.messagesPerSecond)} msg/s, ${baseline.cpuMicrosPerMessage?.toFixed(2)} µs/msg`,
      );
      return baseline;
    } finally {
      await fleet.close();
    }
  } finally {
    await broadcaster.call('close', undefined, 10_000).catch(() => undefined);
    await broadcaster.stop();
  }
}
