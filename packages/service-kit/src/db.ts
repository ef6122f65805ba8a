// Postgres through kysely. Each service owns its database and migrates it at start (and from a
// Kubernetes Job); migrations are plain objects in code, frozen in time.
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { outageLog } from './outage.js';

// Postgres bigint (int8) and numeric come back as strings; our counts and cents fit in a JS number.
pg.types.setTypeParser(20, (value) => Number(value));

export function createDb<DB>(
  url: string,
  options: { max?: number; name?: string; log?: Logger } = {},
): Kysely<DB> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.name,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 15_000,
  });
  const outage = outageLog(options.log, 'postgres');
  // An idle client's error (the server restarted) must not crash the process; the pool replaces it.
  pool.on('error', (error) => outage.failed(error));
  // So does a checked-out client's (between the queries of a transaction): the query fails, the pool drops it.
  pool.on('connect', (client) => {
    outage.recovered();
    client.on('error', (error) => outage.failed(error));
  });
  // A connection that cannot be made (the server is down) fails the query; it is logged once per outage.
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  (pool as unknown as { connect: () => Promise<pg.PoolClient> }).connect = () =>
    connect().catch((error: unknown) => {
      outage.failed(error);
      throw error;
    });
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}

export async function pingDb(db: Kysely<any>): Promise<void> {
  await sql`select 1`.execute(db);
}
