// The only code that reads and writes the users table.
import { canonicalEmail, type Language, type Role } from '@omc/contracts';
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database, UsersTable } from '../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;
export type UserRow = Selectable<UsersTable>;

export class UniqueViolation extends Error {
  constructor(readonly field: 'username' | 'email') {
    super(`${field} taken`);
  }
}

/** Maps Postgres' unique violation on our case-insensitive indexes to the field it concerns. */
function rethrowUnique(error: unknown): never {
  const pg = error as { code?: string; constraint?: string };
  if (pg.code === '23505' && pg.constraint === 'users_username_lower') throw new UniqueViolation('username');
  if (
    pg.code === '23505' &&
    (pg.constraint === 'users_email_lower' || pg.constraint === 'users_email_canonical')
  )
    throw new UniqueViolation('email');
  throw error;
}

export function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('email_canonical', '=', canonicalEmail(email))
    .executeTakeFirst();
}

export function findUserByUsername(db: Db, username: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql`lower(username)`, '=', username.toLowerCase())
    .executeTakeFirst();
}

/** Usernames cannot contain "@", so an identifier with one is an email. */
export function findUserByLogin(db: Db, identifier: string): Promise<UserRow | undefined> {
  return identifier.includes('@') ? findUserByEmail(db, identifier) : findUserByUsername(db, identifier);
}

export async function insertUser(
  db: Db,
  user: {
    id: string;
    username: string;
    email: string;
    passwordHash: string;
    role: Role;
    preferredLanguage: Language;
  },
): Promise<UserRow> {
  try {
    return await db
      .insertInto('users')
      .values({
        id: user.id,
        username: user.username,
        email: user.email,
        email_canonical: canonicalEmail(user.email),
        password_hash: user.passwordHash,
        role: user.role,
        preferred_language: user.preferredLanguage,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (error) {
    rethrowUnique(error);
  }
}

export async function updateUser(
  db: Db,
  id: string,
  changes: Partial<{
    username: string;
    email: string;
    password_hash: string;
    role: Role;
    preferred_language: Language;
    email_verified_at: Date | null;
  }>,
): Promise<void> {
  try {
    await db
      .updateTable('users')
      .set({
        ...changes,
        ...(changes.email !== undefined ? { email_canonical: canonicalEmail(changes.email) } : {}),
        updated_at: sql`now()`,
      })
      .where('id', '=', id)
      .execute();
  } catch (error) {
    rethrowUnique(error);
  }
}

export async function deleteUser(db: Db, id: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', id).execute();
}

export function listUsers(db: Db): Promise<Pick<UserRow, 'username' | 'email' | 'role'>[]> {
  return db
    .selectFrom('users')
    .select(['username', 'email', 'role'])
    .orderBy(sql`lower(username)`)
    .execute();
}

/** The user's row, locked until the transaction ends. */
export function lockUserById(trx: Transaction<Database>, id: string): Promise<UserRow | undefined> {
  return trx.selectFrom('users').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** The user with this email, its row locked until the transaction ends. */
export function lockUserByEmail(trx: Transaction<Database>, email: string): Promise<UserRow | undefined> {
  return trx
    .selectFrom('users')
    .selectAll()
    .where('email_canonical', '=', canonicalEmail(email))
    .forUpdate()
    .executeTakeFirst();
}

/** Locks every admin row, so two concurrent demotions cannot both see "another admin remains". */
export async function lockAdmins(trx: Transaction<Database>): Promise<string[]> {
  const rows = await trx
    .selectFrom('users')
    .select('id')
    .where('role', '=', 'admin')
    .orderBy('id')
    .forUpdate()
    .execute();
  return rows.map((r) => r.id);
}

/** Serialises the bootstrap step across replicas starting together, until the transaction ends. */
export async function lockBootstrap(trx: Transaction<Database>): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext('auth.bootstrap_admin'))`.execute(trx);
}

/** Whether the bootstrap admin was ever created in this database. */
export async function bootstrapDone(trx: Transaction<Database>): Promise<boolean> {
  return Boolean(await trx.selectFrom('bootstrap_admin').select('singleton').executeTakeFirst());
}

export async function recordBootstrap(trx: Transaction<Database>, userId: string | null): Promise<void> {
  await trx.insertInto('bootstrap_admin').values({ user_id: userId }).execute();
}

/**
 * Gives the user's role change the next number of auth's sequence `role_versions` (call it in the
 * change's transaction, with the user's row locked): consumers order role changes by it, not by a clock.
 */
export async function nextRoleVersion(db: Db, userId: string): Promise<number> {
  const { rows } = await sql<{ role_version: string }>`
    update users set role_version = nextval('role_versions') where id = ${userId} returning role_version
  `.execute(db);
  const version = rows[0]?.role_version;
  if (version === undefined) throw new Error(`user ${userId} not found for a role version`);
  return Number(version);
}

/** A page of the admin's user search: by username prefix, or email prefix when the query holds an `@`. */
export interface UserSearch {
  by: 'username' | 'email';
  prefix?: string;
  /** The last row of the previous page: its sort key and id. */
  after?: { key: string; id: string };
  limit: number;
}

/**
 * At most limit + 1 rows in (lower(key) COLLATE "C", id) order: the indexes users_username_search and
 * users_email_search (migration 0015) serve both the prefix match and the order, so a page costs O(page).
 */
export function searchUsers(db: Db, search: UserSearch): Promise<(UserRow & { sort_key: string })[]> {
  const key = sql<string>`(lower(${sql.ref(search.by)}) COLLATE "C")`;
  const escaped = search.prefix?.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  return db
    .selectFrom('users')
    .selectAll()
    .select(key.as('sort_key'))
    .$if(escaped !== undefined, (q) => q.where(key, 'like', sql<string>`${`${escaped}%`} COLLATE "C"`))
    .$if(search.after !== undefined, (q) =>
      q.where(sql<boolean>`(${key}, id) > (${search.after!.key} COLLATE "C", ${search.after!.id}::uuid)`),
    )
    .orderBy(key)
    .orderBy('id')
    .limit(search.limit + 1)
    .execute();
}

/** Sets or lifts a suspension; returns the row as it is now. */
export function setSuspension(
  db: Db,
  id: string,
  suspension: { at: Date; reason: string; by: string } | null,
): Promise<UserRow | undefined> {
  return db
    .updateTable('users')
    .set({
      suspended_at: suspension?.at ?? null,
      suspended_reason: suspension?.reason ?? null,
      suspended_by: suspension?.by ?? null,
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** What payments reads to honour a payout link: the account's security epoch and whether it is suspended. */
export function findAccountSecurity(
  db: Db,
  id: string,
): Promise<Pick<UserRow, 'id' | 'security_epoch' | 'suspended_at'> | undefined> {
  return db
    .selectFrom('users')
    .select(['id', 'security_epoch', 'suspended_at'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findSecurityVersion(
  db: Db,
  id: string,
): Promise<Pick<UserRow, 'security_version'> | undefined> {
  return db.selectFrom('users').select('security_version').where('id', '=', id).executeTakeFirst();
}

/** Raises the account's security version; returns its access state at the new version. */
export function raiseSecurityVersionOf(
  db: Db,
  id: string,
): Promise<Pick<UserRow, 'security_version' | 'suspended_at' | 'suspended_reason'> | undefined> {
  return db
    .updateTable('users')
    .set((eb) => ({ security_version: eb('security_version', '+', 1) }))
    .where('id', '=', id)
    .returning(['security_version', 'suspended_at', 'suspended_reason'])
    .executeTakeFirst();
}

/** Raises the account's security epoch: links other services mailed under the old one are refused. */
export async function raiseSecurityEpoch(db: Db, id: string): Promise<void> {
  await db
    .updateTable('users')
    .set((eb) => ({ security_epoch: eb('security_epoch', '+', 1) }))
    .where('id', '=', id)
    .execute();
}
