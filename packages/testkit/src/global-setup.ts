// Vitest global setup for a package whose tests need the real servers: starts PostgreSQL, Redis and
// NATS (or takes DATABASE_URL, REDIS_URL and NATS_URL), migrates a template database once, and hands
// the URLs to the test files. Everything it started is stopped at the end, by PID.
import { randomBytes } from 'node:crypto';
import { basename, join } from 'node:path';
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
    infra: TestInfra;
  }
}

export function infraGlobalSetup(options: {
  name: string;
  migrations?: Record<string, Migration>;
  redisAppendOnly?: boolean;
}) {
  return async function setup(project: TestProject) {
    const root = workspaceRoot();
    const dataDir = join(
      root,
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
    project.provide('infra', {
      databaseUrl: infra.databaseUrl,
      redisUrl: infra.redisUrl,
      redisUrls: Object.fromEntries(
        REDIS_USER_NAMES.map((name) => [name, infra.redisUrlFor(name)]),
      ) as Record<RedisUserName, string>,
      natsUrl: infra.natsUrl,
      templateDatabase,
      pids: infra.pids,
      dataDir: basename(dataDir) === '' ? dataDir : dataDir,
    });
    return async () => {
      if (templateDatabase && infra.source === 'environment')
        await dropDatabase(infra.databaseUrl, templateDatabase).catch(() => undefined);
      await infra.stop();
    };
  };
}
