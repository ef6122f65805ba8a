// The only code that reads and writes payout_email_changes: new payout addresses waiting for the link
// mailed to the account's email (the token's hash only).
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;
export type PayoutEmailChange = Selectable<Database['payout_email_changes']>;

export async function insertPayoutEmailChange(
  db: Db,
  change: {
    id: string;
    userId: string;
    paypalEmail: string;
    securityEpoch: number;
    expiresAt: Date;
  },
  now: Date,
): Promise<void> {
  await db
    .insertInto('payout_email_changes')
    .values({
      id: change.id,
      user_id: change.userId,
      paypal_email: change.paypalEmail,
      security_epoch: change.securityEpoch,
      created_at: now,
      expires_at: change.expiresAt,
    })
    .execute();
}

/** The account's newest request still open (neither confirmed nor cancelled) and not expired. */
export function openPayoutEmailChange(
  db: Db,
  userId: string,
  now: Date,
): Promise<PayoutEmailChange | undefined> {
  return db
    .selectFrom('payout_email_changes')
    .selectAll()
    .where('user_id', '=', userId)
    .where('confirmed_at', 'is', null)
    .where('cancelled_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export function payoutEmailChangeByTokenHash(
  db: Db,
  tokenHash: string,
): Promise<PayoutEmailChange | undefined> {
  return db
    .selectFrom('payout_email_changes')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** One open request per account: once `id` is asked for, the account's other open requests are spent. */
export async function cancelOtherPayoutEmailChanges(
  db: Db,
  userId: string,
  id: string,
  now: Date,
): Promise<void> {
  await db
    .updateTable('payout_email_changes')
    .set({ cancelled_at: now })
    .where('user_id', '=', userId)
    .where('id', '!=', id)
    .where('confirmed_at', 'is', null)
    .where('cancelled_at', 'is', null)
    .execute();
}

/** Stores a fresh token's hash for an open request (replacing the one before); false when it is closed. */
export async function setPayoutEmailTokenHash(
  db: Db,
  id: string,
  tokenHash: string,
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('payout_email_changes')
    .set({ token_hash: tokenHash })
    .where('id', '=', id)
    .where('confirmed_at', 'is', null)
    .where('cancelled_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deletePayoutEmailChange(db: Db, id: string): Promise<void> {
  await db.deleteFrom('payout_email_changes').where('id', '=', id).execute();
}

export async function cancelPayoutEmailChange(db: Db, id: string, now: Date): Promise<void> {
  await db
    .updateTable('payout_email_changes')
    .set({ cancelled_at: now })
    .where('id', '=', id)
    .where('confirmed_at', 'is', null)
    .where('cancelled_at', 'is', null)
    .execute();
}

/** Marks the request confirmed, once: false when another request confirmed or cancelled it first. */
export async function markPayoutEmailConfirmed(db: Db, id: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('payout_email_changes')
    .set({ confirmed_at: now })
    .where('id', '=', id)
    .where('confirmed_at', 'is', null)
    .where('cancelled_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Requests finished or expired more than `retentionMs` ago are deleted. */
export async function purgePayoutEmailChanges(db: Db, now: Date, retentionMs: number): Promise<number> {
  const result = await db
    .deleteFrom('payout_email_changes')
    // least() skips nulls: a request ends when confirmed, cancelled or expired, whichever came first.
    .where(
      sql<boolean>`least(confirmed_at, cancelled_at, expires_at) < ${new Date(now.getTime() - retentionMs)}`,
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
