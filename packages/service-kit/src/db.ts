// Postgres through kysely. Each service owns its database and migrates it at start (and from a
// Kubernetes Job); migrations are plain objects in code, frozen in time.
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';

// Postgres bigint (int8) and numeric come back as strings; our counts and cents fit in a JS number.
pg.types.setTypeParser(20, (value) => Number(value));

export function createDb<DB>(url: string, options: { max?: number; name?: string } = {}): Kysely<DB> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.name,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 15_000,
  });
  // An idle client's error (the server restarted) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // So does a checked-out client's (between the queries of a transaction): the query fails, the pool drops it.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}

export async function pingDb(db: Kysely<any>): Promise<void> {
  await sql`select 1`.execute(db);
}
