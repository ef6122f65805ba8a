// Vitest global setup for a package whose tests need the real servers: starts PostgreSQL, Redis and
// NATS (or takes DATABASE_URL, REDIS_URL and NATS_URL), migrates a template database once, and hands
// the URLs to the test files. Test files run side by side, one per worker; files empty Redis and NATS
// as they please, so each worker gets a set of servers of its own (`testInfra()` picks it by
// VITEST_POOL_ID). Everything it started is stopped at the end, by PID.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { recreateDatabase, startInfra, dropDatabase } from '@omc/infra';
import { REDIS_USER_NAMES, type RedisUserName } from '@omc/contracts';
import { createDb, migrateToLatest } from '@omc/service-kit';
import type { Migration } from 'kysely';
import type { TestProject } from 'vitest/node';
import { workspaceRoot } from './paths.js';

export interface TestInfra {
  databaseUrl: string;
  /** The harness's Redis URL: every key and command. */
  redisUrl: string;
  /** Each service's own Redis user (its keys and commands only), where Redis was started here. */
  redisUrls: Record<RedisUserName, string>;
  natsUrl: string;
  /** Migrated template to clone per test file; null when the package has no database. */
  templateDatabase: string | null;
  pids: { postgres?: number; redis?: number; nats?: number };
  dataDir: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** One set of servers per worker, in VITEST_POOL_ID order. */
    infraSets: TestInfra[];
  }
}

export function infraGlobalSetup(options: {
  name: string;
  migrations?: Record<string, Migration>;
  redisAppendOnly?: boolean;
}) {
  return async function setup(project: TestProject) {
    // Servers given by URL are one set: the configuration runs the files one at a time then.
    const sets = sharedServersGiven() ? 1 : Math.max(1, project.config.maxWorkers);
    const started = await Promise.allSettled(Array.from({ length: sets }, () => startSet(options)));
    const stops = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value.stop] : []));
    const stopAll = async () => {
      await Promise.allSettled(stops.map((stop) => stop()));
    };
    const failure = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) {
      await stopAll();
      throw failure.reason;
    }
    project.provide(
      'infraSets',
      started.map((r) => (r as PromiseFulfilledResult<{ infra: TestInfra }>).value.infra),
    );
    return stopAll;
  };
}

/** Whether DATABASE_URL, REDIS_URL or NATS_URL name servers to share (one set, files one at a time). */
export function sharedServersGiven(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.DATABASE_URL || env.REDIS_URL || env.NATS_URL);
}

async function startSet(options: {
  name: string;
  migrations?: Record<string, Migration>;
  redisAppendOnly?: boolean;
}): Promise<{ infra: TestInfra; stop(): Promise<void> }> {
  const dataDir = join(
    workspaceRoot(),
    '.data',
    'test',
    `${options.name}-${process.pid}-${randomBytes(3).toString('hex')}`,
  );
  const infra = await startInfra({
    dir: dataDir,
    persistent: false,
    redisAppendOnly: options.redisAppendOnly,
    log: () => undefined,
  });
  let templateDatabase: string | null = null;
  try {
    if (options.migrations) {
      templateDatabase = `${options.name.replace(/[^a-z0-9_]/g, '_')}_template`;
      const url = await recreateDatabase(infra.databaseUrl, templateDatabase);
      const db = createDb(url, { max: 1 });
      try {
        await migrateToLatest(db, options.migrations);
      } finally {
        await db.destroy();
      }
    }
  } catch (error) {
    await infra.stop();
    throw error;
  }
  return {
    infra: {
      databaseUrl: infra.databaseUrl,
      redisUrl: infra.redisUrl,
      redisUrls: Object.fromEntries(
        REDIS_USER_NAMES.map((name) => [name, infra.redisUrlFor(name)]),
      ) as Record<RedisUserName, string>,
      natsUrl: infra.natsUrl,
      templateDatabase,
      pids: infra.pids,
      dataDir,
    },
    async stop() {
      if (templateDatabase && infra.source === 'environment')
        await dropDatabase(infra.databaseUrl, templateDatabase).catch(() => undefined);
      await infra.stop();
    },
  };
}
