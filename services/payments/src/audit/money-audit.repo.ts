// The audit entries of money steps (migration 0035), each written in the transaction of the step it
// records: once per action and subject.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface MoneyAuditEntry {
  action: 'purchase.refunded' | 'purchase.clawed_back' | 'payout.returned';
  subjectId: string;
  actorUserId: string | null;
  targetUserId: string | null;
  ip: string | null;
  detail: Record<string, unknown>;
}

/** Records the entry in `trx`, the step's own transaction; a second entry for the same subject is ignored. */
export async function recordMoneyAudit(trx: Db, entry: MoneyAuditEntry): Promise<void> {
  await trx
    .insertInto('money_audit')
    .values({
      action: entry.action,
      subject_id: entry.subjectId,
      actor_user_id: entry.actorUserId,
      target_user_id: entry.targetUserId,
      ip: entry.ip,
      detail: JSON.stringify(entry.detail),
    })
    .onConflict((oc) => oc.constraint('money_audit_once').doNothing())
    .execute();
}

export async function moneyAuditOf(db: Db, action: MoneyAuditEntry['action'], subjectId: string) {
  return db
    .selectFrom('money_audit')
    .selectAll()
    .where('action', '=', action)
    .where('subject_id', '=', subjectId)
    .execute();
}
