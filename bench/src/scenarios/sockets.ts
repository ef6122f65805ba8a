// Socket fleets spread over load-generator processes, connected to the gateway's /socket.io (as browsers
// do) or to the realtime service directly.
import type { BenchSystem } from '../bench-system.js';
import type { BenchSettings } from '../settings.js';
import { Histogram, type HistogramData } from '../stats.js';
import { startWorker, type Worker } from '../workers.js';

export interface ConnectOutcome {
  connected: number;
  failed: number;
  errors: Record<string, number>;
}

export interface MeasureOutcome {
  sockets: number;
  connectedNow: number;
  durationMs: number;
  messages: number;
  stateUpdates: number;
  bytes: number;
  bytesExact: boolean;
  histogram?: HistogramData;
  matched: number;
  missed: number;
  gaps: number[];
}

export interface Fleet {
  workers: Worker[];
  connected: number;
  failed: number;
  errors: Record<string, number>;
  /** Starts recording; with `timed`, only that many sockets (spread over the workers) record arrival times. */
  mark(timed?: number): Promise<void>;
  measure(acks?: {
    ordinals: number[];
    times: number[];
  }): Promise<{ total: MeasureOutcome; histogram?: Histogram }>;
  call<T>(method: string, args?: unknown): Promise<T[]>;
  close(): Promise<void>;
}

/** Connects `count` sockets to the gateway or realtime (as settings say), or to `url` when given. */
export async function connectFleet(
  bs: BenchSystem,
  settings: BenchSettings,
  count: number,
  url: string = settings.socketVia === 'gateway' ? bs.gatewayUrl : bs.realtimeUrl,
): Promise<Fleet> {
  const tokens = bs.users.map((u) => u.token);
  const workerCount = Math.ceil(count / settings.socketsPerWorker);
  const workers = Array.from({ length: workerCount }, () =>
    startWorker('socket-worker', { BENCH_SOCKET_CLIENT: settings.socketClient }),
  );
  const fleet: Fleet = {
    workers,
    connected: 0,
    failed: 0,
    errors: {},
    async mark(timed?: number) {
      const each = timed === undefined ? undefined : Math.ceil(timed / workers.length);
      await Promise.all(workers.map((w) => w.call('mark', each === undefined ? undefined : { timed: each })));
    },
    async measure(acks) {
      const parts = await Promise.all(
        workers.map((w) => w.call<MeasureOutcome>('measure', { acks }, 300_000)),
      );
      const total: MeasureOutcome = {
        sockets: 0,
        connectedNow: 0,
        durationMs: 0,
        messages: 0,
        stateUpdates: 0,
        bytes: 0,
        bytesExact: true,
        matched: 0,
        missed: 0,
        gaps: [],
      };
      let histogram: Histogram | undefined;
      for (const part of parts) {
        total.sockets += part.sockets;
        total.connectedNow += part.connectedNow;
        total.durationMs = Math.max(total.durationMs, part.durationMs);
        total.messages += part.messages;
        total.stateUpdates += part.stateUpdates;
        total.bytes += part.bytes;
        total.bytesExact &&= part.bytesExact;
        total.matched += part.matched;
        total.missed += part.missed;
        total.gaps.push(...part.gaps.slice(0, 2000));
        if (part.histogram) {
          if (histogram) histogram.merge(part.histogram);
          else histogram = Histogram.fromJSON(part.histogram);
        }
      }
      return { total, histogram };
    },
    async call<T>(method: string, args?: unknown) {
      return Promise.all(workers.map((w) => w.call<T>(method, args)));
    },
    async close() {
      await Promise.allSettled(workers.map((w) => w.call('close', undefined, 30_000)));
      await Promise.all(workers.map((w) => w.stop()));
    },
  };
  try {
    const perWorker = workers.map((_, i) =>
      Math.min(settings.socketsPerWorker, count - i * settings.socketsPerWorker),
    );
    const results = await Promise.all(
      workers.map((w, i) =>
        w.call<ConnectOutcome>(
          'connect',
          {
            url,
            count: perWorker[i],
            tokens,
            concurrency: Math.max(1, Math.round(settings.connectConcurrency / workers.length)),
          },
          600_000,
        ),
      ),
    );
    for (const r of results) {
      fleet.connected += r.connected;
      fleet.failed += r.failed;
      for (const [message, n] of Object.entries(r.errors))
        fleet.errors[message] = (fleet.errors[message] ?? 0) + n;
    }
  } catch (error) {
    await fleet.close();
    throw error;
  }
  return fleet;
}
