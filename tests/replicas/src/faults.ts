// The faults of the matrix, each done to the real servers and processes by their own PIDs and files, as
// an operator or a failing machine would do them.
import { existsSync, readdirSync, rmSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { withDescendants } from '@omc/infra';
import { Redis } from 'ioredis';

export { withDescendants };

/** A stalled node: every process of the server stopped (SIGSTOP) for `ms`, then continued. */
export async function stall(pid: number, ms: number): Promise<void> {
  const pids = withDescendants(pid);
  for (const p of pids) process.kill(p, 'SIGSTOP');
  try {
    await new Promise((r) => setTimeout(r, ms));
  } finally {
    for (const p of [...pids].reverse()) {
      try {
        process.kill(p, 'SIGCONT');
      } catch {
        // exited while stopped
      }
    }
  }
}

export interface RedisCopy {
  keys: { key: Buffer; ttl: number; value: Buffer }[];
}

function client(url: string): Redis {
  return new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true });
}

/** Every key copied aside (DUMP), as a snapshot or a lagging replica holds them. */
export async function copyRedis(url: string): Promise<RedisCopy> {
  const redis = client(url);
  try {
    await redis.connect();
    const keys: RedisCopy['keys'] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scanBuffer(cursor, 'COUNT', 1000);
      cursor = next.toString();
      for (const key of batch) {
        const [value, ttl] = await Promise.all([redis.dumpBuffer(key), redis.pttl(key)]);
        if (value) keys.push({ key, ttl: ttl > 0 ? ttl : 0, value });
      }
    } while (cursor !== '0');
    return { keys };
  } finally {
    redis.disconnect();
  }
}

/** Puts the copy back in one transaction: Redis is, at once, exactly as it was when copied. */
export async function restoreRedis(url: string, copy: RedisCopy): Promise<void> {
  const redis = client(url);
  try {
    await redis.connect();
    const tx = redis.multi().flushall();
    for (const k of copy.keys) tx.restore(k.key, k.ttl, k.value, 'REPLACE');
    const results = await tx.exec();
    const failed = (results ?? []).find(([error]) => error);
    if (failed) throw failed[0];
  } finally {
    redis.disconnect();
  }
}

/** The size of every JetStream message block now, to cut the store back to later. */
export function jetstreamBlocks(storeDir: string): Map<string, number> {
  const sizes = new Map<string, number>();
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else if (entry.endsWith('.blk')) sizes.set(path, stat.size);
    }
  };
  walk(storeDir);
  return sizes;
}

/**
 * What a power loss does to a server that had not synced since `synced` was taken: every message block
 * cut back to its size then, blocks begun since removed, and the blocks' indexes dropped so the server
 * rebuilds them from what is left. Returns how many bytes were lost. The server must be stopped.
 */
export function loseUnsyncedTail(storeDir: string, synced: Map<string, number>): number {
  let lost = 0;
  for (const [path, size] of jetstreamBlocks(storeDir)) {
    const keep = synced.get(path) ?? 0;
    if (size <= keep) continue;
    lost += size - keep;
    if (keep === 0) rmSync(path, { force: true });
    else truncateSync(path, keep);
    for (const suffix of ['.idx', '.fss']) rmSync(path.replace(/\.blk$/, suffix), { force: true });
  }
  return lost;
}
