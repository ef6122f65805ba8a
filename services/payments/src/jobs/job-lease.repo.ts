// A background job's lease: a session advisory lock in Postgres, so that of several payments instances
// one runs a pass at a time; it is released when the pass ends, or by Postgres when the instance dies
// (its connection closes), so a crash never leaves the job held.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** Runs `work` while holding the job's lease; undefined (and nothing run) when another instance holds it. */
export async function underLease<T>(
  db: Kysely<Database>,
  job: string,
  work: () => Promise<T>,
): Promise<T | undefined> {
  const key = `payments:${job}`;
  return db.connection().execute(async (connection) => {
    const { rows } = await sql<{
      held: boolean;
    }>`select pg_try_advisory_lock(hashtext(${key})) as held`.execute(connection);
    if (!rows[0]?.held) return undefined;
    try {
      return await work();
    } finally {
      // A connection lost meanwhile took its lock with it.
      await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(connection).catch(() => undefined);
    }
  });
}
