// Finding a player: the admin list searched by name or email prefix and paged by an opaque cursor.
import type { AdminUserEntry, AdminUsersPage, AdminUsersQuery } from '@omc/contracts';
import { badRequest } from '@omc/service-kit';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { searchUsers, type UserRow } from '../users/users.repo.js';

export const DEFAULT_USERS_PAGE = 50;

export function adminEntry(user: UserRow): AdminUserEntry {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    role: user.role,
    verified: user.email_verified_at !== null,
    suspended: user.suspended_at !== null,
    suspendedReason: user.suspended_reason,
    suspendedAt: user.suspended_at?.toISOString() ?? null,
    createdAt: user.created_at.toISOString(),
  };
}

interface CursorState {
  by: 'username' | 'email';
  prefix?: string;
  key: string;
  id: string;
}

const badCursor = () => badRequest('cursor must be the nextCursor of a previous page', 'cursor');

function readCursor(cursor: string): CursorState {
  try {
    const state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorState;
    if (
      (state.by === 'username' || state.by === 'email') &&
      typeof state.key === 'string' &&
      /^[0-9a-f-]{36}$/.test(state.id)
    )
      return state;
  } catch {
    // falls through
  }
  throw badCursor();
}

export async function usersPage(db: Kysely<Database>, query: AdminUsersQuery): Promise<AdminUsersPage> {
  const limit = query.limit ?? DEFAULT_USERS_PAGE;
  const after = query.cursor ? readCursor(query.cursor) : undefined;
  // A cursor carries its search, so the next page continues the same one.
  const prefix = after ? after.prefix : query.query;
  const by = after ? after.by : prefix?.includes('@') ? 'email' : 'username';
  if (after && query.query !== undefined && query.query !== after.prefix)
    throw badRequest('cursor belongs to another query: start again without it', 'cursor');
  const rows = await searchUsers(db, { by, prefix, after, limit });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    users: page.map(adminEntry),
    nextCursor:
      rows.length > limit && last
        ? Buffer.from(
            JSON.stringify({ by, prefix, key: last.sort_key, id: last.id } satisfies CursorState),
          ).toString('base64url')
        : null,
  };
}
