// The only code that reads and writes mail_queue: mails ordered by events, waiting to be sent. A row holds
// what to render (kind, language, parameters) and which link to mint, never a token: the sender renders it
// and mints its link when it sends. Rows queued by older auth hold their rendered text until sent.
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
    language: string;
    subject: string;
    params: Record<string, unknown>;
    link: { kind: string; ref: string } | null;
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
      language: mail.language,
      subject: mail.subject,
      params: JSON.stringify(mail.params),
      link: mail.link ? JSON.stringify(mail.link) : null,
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
    .where('dropped_at', 'is', null)
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
    .set((eb) => ({
      sent_at: new Date(now),
      attempts: eb('attempts', '+', 1),
      last_error: null,
      // A row of older auth's kept its rendered text, links included: not kept once sent.
      text: null,
      html: null,
    }))
    .where('id', '=', id)
    .execute();
}

/** The mail's link may no longer be used (spent, cancelled, expired): it is not sent, ever. */
export async function markDropped(db: Db, id: string, now: number, reason: string): Promise<void> {
  await db
    .updateTable('mail_queue')
    .set({ dropped_at: new Date(now), last_error: reason, text: null, html: null })
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
    .where('dropped_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Sent and dropped mail is kept MAIL_RETENTION_HOURS (a day by default, for support: to whom, what kind,
 * when; no text), then deleted; so is unsent mail older than its links can live (a week).
 */
export async function purgeSentMail(db: Db, now: number, retentionMs: number): Promise<number> {
  const sent = await db
    .deleteFrom('mail_queue')
    .where((eb) =>
      eb.or([
        eb('sent_at', '<', new Date(now - retentionMs)),
        eb('dropped_at', '<', new Date(now - retentionMs)),
      ]),
    )
    .executeTakeFirst();
  const stale = await db
    .deleteFrom('mail_queue')
    .where('sent_at', 'is', null)
    .where('dropped_at', 'is', null)
    .where('created_at', '<', new Date(now - 7 * 24 * 3600_000))
    .executeTakeFirst();
  return Number(sent.numDeletedRows) + Number(stale.numDeletedRows);
}
