// Postgres through kysely. Each service owns its database and migrates it at start (and from a
// Kubernetes Job); migrations are plain objects in code, frozen in time.
import { Kysely, Migrator, PostgresDialect, sql, type Migration } from 'kysely';
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

export async function migrateToLatest(
  db: Kysely<any>,
  migrations: Record<string, Migration>,
): Promise<string[]> {
  // Unordered: a service-kit migration (0000_kit_*) may come after a service's own ones already ran.
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

export async function pingDb(db: Kysely<any>): Promise<void> {
  await sql`select 1`.execute(db);
}
