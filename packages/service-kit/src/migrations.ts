// What an operator runs against a service's database: status, up (to the latest) and down (one step
// or several), all through kysely's Migrator. Each service's src/migrate.ts is a thin CLI over these.
import { Migrator, type Kysely, type Migration } from 'kysely';
import { ConfigError, loadMigrateConfig } from './config.js';
import { createDb } from './db.js';

export interface MigrationState {
  name: string;
  /** When it ran; undefined: pending. */
  executedAt?: Date;
}

function migrator(db: Kysely<any>, migrations: Record<string, Migration>): Migrator {
  // Unordered: a service-kit migration (0000_kit_*) may come after a service's own ones already ran.
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    allowUnorderedMigrations: true,
  });
}

function raise(error: unknown): never {
  throw error instanceof Error ? error : new Error(String(error));
}

export async function migrationStatus(
  db: Kysely<any>,
  migrations: Record<string, Migration>,
): Promise<MigrationState[]> {
  const all = await migrator(db, migrations).getMigrations();
  return all.map((m) => ({ name: m.name, executedAt: m.executedAt }));
}

/** Runs every pending migration; returns the names it ran, in order. */
export async function migrateToLatest(
  db: Kysely<any>,
  migrations: Record<string, Migration>,
): Promise<string[]> {
  const { error, results } = await migrator(db, migrations).migrateToLatest();
  if (error) raise(error);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Undoes the last `steps` migrations that ran, newest first; returns the names it undid. Refuses, before
 * undoing anything, when one of them has no down step (kysely would silently skip it).
 */
export async function migrateDown(
  db: Kysely<any>,
  migrations: Record<string, Migration>,
  steps = 1,
): Promise<string[]> {
  if (!Number.isInteger(steps) || steps < 1)
    throw new Error(`steps must be a positive integer, got ${steps}`);
  const executed = (await migrationStatus(db, migrations))
    .filter((m): m is Required<MigrationState> => m.executedAt !== undefined)
    // Newest first, as kysely rolls back (same order: execution time, then name).
    .sort((a, b) => b.executedAt.getTime() - a.executedAt.getTime() || b.name.localeCompare(a.name))
    .slice(0, steps);
  const missing = executed.filter((m) => !migrations[m.name]?.down).map((m) => m.name);
  if (missing.length > 0) throw new Error(`no down step for ${missing.join(', ')}; nothing was undone`);
  const undone: string[] = [];
  for (let i = 0; i < executed.length; i++) {
    const { error, results } = await migrator(db, migrations).migrateDown();
    if (error) raise(error);
    undone.push(...(results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName));
  }
  return undone;
}

/** The text of `migrate status`: one line per migration, with when it ran or "pending". */
export function formatMigrationStatus(service: string, states: MigrationState[]): string {
  const width = Math.max(...states.map((s) => s.name.length));
  const lines = states.map(
    (s) => `${s.name.padEnd(width)}  ${s.executedAt ? s.executedAt.toISOString() : 'pending'}`,
  );
  const pending = states.filter((s) => !s.executedAt).length;
  return [`${service}: ${states.length - pending} applied, ${pending} pending`, ...lines].join('\n');
}

const USAGE = 'usage: migrate [status | up | down [steps]]   (no argument: up)';

/**
 * The migration CLI every service shares. `up` (the default, the Kubernetes Job's command) runs what is
 * pending; `down [n]` undoes the last n (default 1); `status` lists each migration. Returns the exit code.
 */
export async function runMigrationCommand(options: {
  service: string;
  argv: string[];
  db: Kysely<any>;
  migrations: Record<string, Migration>;
  out?: (line: string) => void;
}): Promise<number> {
  const out = options.out ?? ((line: string) => console.log(line));
  const [command = 'up', arg, ...rest] = options.argv;
  const { db, migrations, service } = options;
  if (rest.length > 0) {
    out(USAGE);
    return 2;
  }
  switch (command) {
    case 'status':
      if (arg !== undefined) break;
      out(formatMigrationStatus(service, await migrationStatus(db, migrations)));
      return 0;
    case 'up':
      if (arg !== undefined) break;
      out(JSON.stringify({ service, migrated: await migrateToLatest(db, migrations) }));
      return 0;
    case 'down': {
      const steps = arg === undefined ? 1 : Number(arg);
      if (!Number.isInteger(steps) || steps < 1) {
        out(`down takes a positive number of steps, got "${arg}"`);
        return 2;
      }
      out(JSON.stringify({ service, undone: await migrateDown(db, migrations, steps) }));
      return 0;
    }
  }
  out(USAGE);
  return 2;
}

/**
 * A service's `migrate` script (its src/migrate.ts): runs the command its arguments name on the database
 * DATABASE_URL names (nothing else is read; a bad one exits with code 78, as a service does), one
 * connection, closed after, and sets the process's exit code.
 */
export async function migrationCli(options: {
  service: string;
  migrations: Record<string, Migration>;
  env?: NodeJS.ProcessEnv;
}): Promise<void> {
  let databaseUrl: string;
  try {
    databaseUrl = loadMigrateConfig(options.env).DATABASE_URL;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`[${options.service} migrate] ${error.message}`);
    process.exitCode = 78;
    return;
  }
  const db = createDb(databaseUrl, { max: 1 });
  try {
    process.exitCode = await runMigrationCommand({
      service: options.service,
      argv: process.argv.slice(2),
      db,
      migrations: options.migrations,
    });
  } finally {
    await db.destroy();
  }
}
