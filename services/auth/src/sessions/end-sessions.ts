// The one way a session ends. Logout, "end session", "sign out everywhere", a password change or reset, an
// email confirm or undo, a reused refresh token, a suspension and an account deletion all come here, so
// each ending is serialized with rotation (a refresh in flight either finishes before and is ended with
// the rest, or runs after and finds its session ended) and is announced in the same transaction
// (auth.session.ended.v1 through the outbox): every service refuses the session's access tokens until
// the last has expired.
import { makeEvent, SUBJECTS } from '@omc/contracts';
import { ACCESS_TOKEN_TTL_SECONDS } from '@omc/service-kit';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { enqueue } from '../events.js';
import { lockSessionsOf, revokeSessions, type SessionsToEnd } from './sessions.repo.js';

export type { SessionsToEnd } from './sessions.repo.js';

/** How long after a session ends its last access token may still be presented (clock skew included). */
export const ENDED_SESSION_TOKENS_MS = (ACCESS_TOKEN_TTL_SECONDS + 60) * 1000;

/**
 * Ends the sessions named: takes the account's lock (the one rotation takes), revokes their refresh
 * tokens and announces each session that was live. Returns the ids of the sessions it ended.
 */
export async function endSessions(
  trx: Transaction<Database>,
  userId: string,
  which: SessionsToEnd,
  now: number,
): Promise<string[]> {
  await lockSessionsOf(trx, userId);
  const ended = await revokeSessions(trx, userId, which, now);
  const until = new Date(now + ENDED_SESSION_TOKENS_MS).toISOString();
  for (const sessionId of ended)
    await enqueue(trx, makeEvent(SUBJECTS.sessionEnded, { userId, sessionId, until }));
  return ended;
}

/** Ends one session of the account in a transaction of its own; whether it was live. */
export async function endSession(
  db: Kysely<Database>,
  userId: string,
  sessionId: string,
  now: number,
): Promise<boolean> {
  const ended = await db.transaction().execute((trx) => endSessions(trx, userId, { only: sessionId }, now));
  return ended.length > 0;
}
