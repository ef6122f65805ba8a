// The migration round trip every service's suite runs on a copy of its migrated template: undo each
// migration one at a time down to an empty schema, then redo them one at a time, and check that every
// step up leaves the schema exactly as it was before the matching step down.
import { createDb, migrateDown, migrationStatus } from '@omc/service-kit';
import { Migrator, sql, type Kysely, type Migration } from 'kysely';

const KYSELY_TABLES = ['kysely_migration', 'kysely_migration_lock'];

/** Every table, column, constraint, index, trigger, function and sequence of the public schema. */
export async function schemaSnapshot(db: Kysely<any>): Promise<string[]> {
  const rows = await sql<{ line: string }>`
    select 'column ' || table_name || '.' || column_name || ' ' || data_type || ' null=' || is_nullable
           || ' default=' || coalesce(column_default, '-') as line
      from information_schema.columns
     where table_schema = 'public' and table_name <> all(${KYSELY_TABLES})
    union all
    select 'constraint ' || rel.relname || '.' || con.conname || ' ' || pg_get_constraintdef(con.oid)
      from pg_constraint con join pg_class rel on rel.oid = con.conrelid
      join pg_namespace ns on ns.oid = rel.relnamespace
     where ns.nspname = 'public' and rel.relname <> all(${KYSELY_TABLES})
    union all
    select 'index ' || indexdef from pg_indexes
     where schemaname = 'public' and tablename <> all(${KYSELY_TABLES})
    union all
    select 'trigger ' || rel.relname || '.' || tg.tgname
      from pg_trigger tg join pg_class rel on rel.oid = tg.tgrelid
      join pg_namespace ns on ns.oid = rel.relnamespace
     where ns.nspname = 'public' and not tg.tgisinternal
    union all
    select 'function ' || p.proname from pg_proc p join pg_namespace ns on ns.oid = p.pronamespace
     where ns.nspname = 'public'
    union all
    select 'sequence ' || sequence_name from information_schema.sequences where sequence_schema = 'public'
    union all
    select 'type ' || t.typname from pg_type t join pg_namespace ns on ns.oid = t.typnamespace
     where ns.nspname = 'public' and t.typtype in ('e', 'd')
  `.execute(db);
  return rows.rows.map((r) => r.line).sort();
}

export interface RoundTrip {
  /** Migration names in the order they were undone (newest first). */
  undone: string[];
  /** The schema left once every migration was undone. */
  emptied: string[];
  /** Schemas before each step down, newest first. */
  down: string[][];
  /** Schemas after each step up, in the reverse order so they line up with `down`. */
  up: string[][];
}

/** Runs the round trip on the database at `url` (already migrated to the latest). */
export async function migrationRoundTrip(
  url: string,
  migrations: Record<string, Migration>,
): Promise<RoundTrip> {
  const db = createDb(url, { max: 1 });
  try {
    const applied = (await migrationStatus(db, migrations)).filter((m) => m.executedAt).length;
    const undone: string[] = [];
    const down: string[][] = [];
    for (let i = 0; i < applied; i++) {
      down.push(await schemaSnapshot(db));
      undone.push(...(await migrateDown(db, migrations, 1)));
    }
    const emptied = await schemaSnapshot(db);
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => migrations },
      allowUnorderedMigrations: true,
    });
    const up: string[][] = [];
    for (let i = 0; i < applied; i++) {
      const { error } = await migrator.migrateUp();
      if (error) throw error instanceof Error ? error : new Error(String(error));
      up.unshift(await schemaSnapshot(db));
    }
    return { undone, emptied, down, up };
  } finally {
    await db.destroy();
  }
}
