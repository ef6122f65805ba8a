// Users as auth announces them: the only SQL on the users table (and a deleted user's payee row).
import type { Role } from '@omc/contracts';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

export async function findUserRole(db: Db, userId: string) {
  return db.selectFrom('users').select(['role', 'deleted_at']).where('id', '=', userId).executeTakeFirst();
}

/** The role payments holds for the user and when auth last changed it (null: never since registration). */
export async function findRoleRecord(db: Db, userId: string) {
  return db
    .selectFrom('users')
    .select(['role', 'role_changed_at'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

export async function upsertRegisteredUser(
  db: Db,
  user: { id: string; username: string; email: string; role: Role },
): Promise<void> {
  await db
    .insertInto('users')
    .values(user)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({ username: user.username, email: user.email, updated_at: sql`now()` }),
    )
    .execute();
}

/** Only a newer change wins: a late redelivery of an older one must not undo it. */
export async function setRoleIfNewer(db: Db, userId: string, role: Role, at: Date): Promise<void> {
  await db
    .insertInto('users')
    .values({ id: userId, role, role_changed_at: at })
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet({ role, role_changed_at: at, updated_at: sql`now()` })
        .where((eb) =>
          eb.or([eb('users.role_changed_at', 'is', null), eb('users.role_changed_at', '<', at)]),
        ),
    )
    .execute();
}

export async function setUsername(db: Db, userId: string, username: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ username, updated_at: sql`now()` })
    .where('id', '=', userId)
    .execute();
}

export async function setEmail(db: Db, userId: string, email: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ email, updated_at: sql`now()` })
    .where('id', '=', userId)
    .execute();
}

/** The ledger keeps the user's history; the user can no longer act, and no payout address is kept. */
export async function markDeleted(db: Db, userId: string): Promise<void> {
  await db
    .insertInto('users')
    .values({ id: userId, role: 'standard', deleted_at: sql`now()` })
    .onConflict((oc) => oc.column('id').doUpdateSet({ deleted_at: sql`now()`, updated_at: sql`now()` }))
    .execute();
  await db.deleteFrom('payees').where('user_id', '=', userId).execute();
}
