// The machine a run measured on, as its results describe it: hardware, versions, the socket path and
// client, and the load average around the run (figures of a shared machine are read beside it).
import { cpus, release, totalmem } from 'node:os';
import { Redis } from 'ioredis';
import type { Machine } from './report.js';
import type { BenchSettings } from './settings.js';

export async function redisVersion(url: string): Promise<string> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    return /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? 'unknown';
  } finally {
    redis.disconnect();
  }
}

/** The machine as the run starts; `redis` is the server's version, 'unknown' when the system did not start. */
export function describeMachine(
  settings: BenchSettings,
  loadAtStart: [number, number, number],
  fileLimit: number | null,
  redis: string,
): Machine {
  const cpuList = cpus();
  return {
    description: '',
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
    cpus: cpuList.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `Linux ${release()}`,
    node: process.version,
    redis,
    loadAverageAtStart: loadAtStart,
    socketVia: settings.socketVia,
    socketClient: settings.socketClient,
    fileDescriptorLimit: fileLimit,
  };
}

/** Adds the load average at the end of the run and the one line the report heads its tables with. */
export function finishMachine(machine: Machine, loadAtEnd: [number, number, number]): void {
  const loadAtStart = machine.loadAverageAtStart;
  machine.loadAverageAtEnd = loadAtEnd;
  machine.description =
    `${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}, Redis ${machine.redis}; ` +
    `load average ${loadAtStart[0].toFixed(2)} at start, ${loadAtEnd[0].toFixed(2)} at end`;
}
