// The only code that reads and writes mail_queue: mails rendered from events, waiting to be sent.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, MailQueueTable } from '../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;
export type QueuedMail = Selectable<MailQueueTable>;

export async function queueMail(
  db: Db,
  mail: {
    id: string;
    eventId: string;
    kind: string;
    recipient: string;
    subject: string;
    text: string;
    html: string;
  },
  now: number,
): Promise<void> {
  await db
    .insertInto('mail_queue')
    .values({
      id: mail.id,
      event_id: mail.eventId,
      kind: mail.kind,
      recipient: mail.recipient,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      next_attempt_at: new Date(now),
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** Mails due now, locked for this transaction; another replica's sender skips them. */
export function lockDueMail(trx: Transaction<Database>, now: number, limit: number): Promise<QueuedMail[]> {
  return trx
    .selectFrom('mail_queue')
    .selectAll()
    .where('sent_at', 'is', null)
    .where('next_attempt_at', '<=', new Date(now))
    .orderBy('next_attempt_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

export async function markSent(db: Db, id: string, now: number): Promise<void> {
  await db
    .updateTable('mail_queue')
    .set((eb) => ({ sent_at: new Date(now), attempts: eb('attempts', '+', 1), last_error: null }))
    .where('id', '=', id)
    .execute();
}

export async function markFailed(db: Db, id: string, nextAttempt: number, error: string): Promise<void> {
  await db
    .updateTable('mail_queue')
    .set((eb) => ({
      next_attempt_at: new Date(nextAttempt),
      attempts: eb('attempts', '+', 1),
      last_error: error.slice(0, 500),
    }))
    .where('id', '=', id)
    .execute();
}

export async function unsentCount(db: Db): Promise<number> {
  const row = await db
    .selectFrom('mail_queue')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('sent_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Sent mail is kept MAIL_RETENTION_HOURS (a day by default, for support: its text holds the links it
 * carried), then deleted; so is unsent mail older than its links can live (a week).
 */
export async function purgeSentMail(db: Db, now: number, retentionMs: number): Promise<number> {
  const sent = await db
    .deleteFrom('mail_queue')
    .where('sent_at', '<', new Date(now - retentionMs))
    .executeTakeFirst();
  const stale = await db
    .deleteFrom('mail_queue')
    .where('sent_at', 'is', null)
    .where('created_at', '<', new Date(now - 7 * 24 * 3600_000))
    .executeTakeFirst();
  return Number(sent.numDeletedRows) + Number(stale.numDeletedRows);
}
