// The readiness probe's one statement: the database answers.
import { sql, type Kysely } from 'kysely';

export async function pingDb(db: Kysely<any>): Promise<void> {
  await sql`select 1`.execute(db);
}
