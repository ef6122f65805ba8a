// The game's players: their record (role, name, deletion, access state) and their granted clicks.
import type { Role } from '@omc/contracts';
import { sql } from 'kysely';
import type { Db } from '../db/db.js';

export interface UserRow {
  id: string;
  username: string | null;
  role: Role;
  version: number;
  deleted: boolean;
  grantedClicks: number;
  /** The sign-up clicks are in grantedClicks (false while they wait for a verified email). */
  signupGranted: boolean;
  /** The operator's reason when an admin suspended the account; null when not suspended. */
  suspension: { reason: string } | null;
  /** auth's security version of the account (0 until the first change arrives). */
  securityVersion: number;
}

export async function findUsers(db: Db, ids: string[]): Promise<Map<string, UserRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('users')
    .select([
      'id',
      'username',
      'role',
      'version',
      'deleted_at',
      'granted_clicks',
      'signup_clicks_granted',
      'suspended_at',
      'suspended_reason',
      'security_version',
    ])
    .where('id', 'in', ids)
    .execute();
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        username: r.username,
        role: r.role as Role,
        version: Number(r.version),
        deleted: r.deleted_at !== null,
        grantedClicks: Number(r.granted_clicks),
        signupGranted: r.signup_clicks_granted,
        suspension: r.suspended_at ? { reason: r.suspended_reason ?? '' } : null,
        securityVersion: Number(r.security_version),
      },
    ]),
  );
}

/** Creates the user with the sign-up grant (or without it, still to come); false when it already existed. */
export async function insertUser(
  db: Db,
  user: { id: string; username: string; role: Role; grantedClicks: number; signupGranted: boolean },
): Promise<boolean> {
  const inserted = await db
    .insertInto('users')
    .values({
      id: user.id,
      username: user.username,
      role: user.role,
      granted_clicks: user.grantedClicks,
      signup_clicks_granted: user.signupGranted,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

function roleIsNewer(
  current: { role_version: string | null; role_changed_at: Date | null },
  version: number | undefined,
  at: Date,
): boolean {
  if (version !== undefined) return current.role_version === null || Number(current.role_version) < version;
  return current.role_version === null && (!current.role_changed_at || current.role_changed_at < at);
}

/**
 * Applies a role, name or deletion as of `at` (when auth made the change); a change older than the one
 * already applied is ignored. A role is ordered by `roleVersion` (auth's sequence) when the change has
 * one; an unversioned change (an event from before versions) by `at`, and only while no versioned change
 * was applied. Throws when the user is unknown (the event is retried later).
 */
export async function updateUser(
  db: Db,
  id: string,
  change: { role?: Role; roleVersion?: number; username?: string; deleted?: true },
  at: Date,
): Promise<void> {
  const current = await db
    .selectFrom('users')
    .select(['role_changed_at', 'role_version', 'renamed_at', 'deleted_at'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!current) throw new Error(`user ${id} is not known yet`);
  if (current.deleted_at && !change.deleted) return;
  if (change.role && !roleIsNewer(current, change.roleVersion, at)) return;
  if (change.username !== undefined && current.renamed_at && current.renamed_at >= at) return;
  await db
    .updateTable('users')
    .set((eb) => ({
      version: eb('version', '+', 1),
      ...(change.role
        ? {
            role: change.role,
            role_changed_at: at,
            ...(change.roleVersion !== undefined ? { role_version: change.roleVersion } : {}),
          }
        : {}),
      ...(change.username !== undefined ? { username: change.username, renamed_at: at } : {}),
      ...(change.deleted ? { username: null, deleted_at: at } : {}),
    }))
    .where('id', '=', id)
    .execute();
  if (change.deleted) {
    // Personal data goes; the wins stay, anonymous.
    await db
      .updateTable('winners')
      .set({ user_id: null, username: null })
      .where('user_id', '=', id)
      .execute();
    await db
      .updateTable('rounds')
      .set({ last_click_user_id: null })
      .where('last_click_user_id', '=', id)
      .execute();
  }
}

/**
 * Applies auth's access state (suspended or not, at a security version) when its version is newer than the one the game holds
 * (a repeated or late change is a no-op); raises the user's version so Redis takes it (UsersInPlay.sync).
 * Returns false when the user is unknown (the caller waits or the event is retried).
 */
export async function applyAccess(
  db: Db,
  id: string,
  change: { suspended: boolean; reason: string | null; securityVersion: number },
  at: Date,
): Promise<boolean> {
  const current = await db
    .selectFrom('users')
    .select(['security_version'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!current) return false;
  if (Number(current.security_version) >= change.securityVersion) return true;
  await db
    .updateTable('users')
    .set((eb) => ({
      version: eb('version', '+', 1),
      security_version: change.securityVersion,
      suspended_at: change.suspended ? at : null,
      suspended_reason: change.suspended ? (change.reason ?? '') : null,
    }))
    .where('id', '=', id)
    .execute();
  return true;
}

/**
 * Adds a user's sign-up clicks with their mark, once: written by the event's handler before the event is
 * acknowledged (so a Redis lost before the journal's flush loses no grant), and again by the journal,
 * which then changes nothing. Returns whether this call granted them.
 */
export async function recordSignupGrant(db: Db, userId: string, clicks: number): Promise<boolean> {
  const row = await db
    .updateTable('users')
    .set((eb) => ({ granted_clicks: eb('granted_clicks', '+', clicks), signup_clicks_granted: true }))
    .where('id', '=', userId)
    .where('signup_clicks_granted', '=', false)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function addGrantedClicks(db: Db, deltas: Map<string, number>): Promise<void> {
  const ids = [...deltas.keys()];
  if (ids.length === 0) return;
  const values = ids.map((id) => deltas.get(id)!);
  await sql`update users u set granted_clicks = u.granted_clicks + d.delta
    from unnest(${ids}::uuid[], ${values}::bigint[]) as d(id, delta) where u.id = d.id`.execute(db);
}
