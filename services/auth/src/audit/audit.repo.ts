// The only code that touches audit_log: it appends and reads; the table's trigger refuses the rest.
import type { AuditAction, AuditEntry } from '@omc/contracts';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface AuditRecord {
  action: AuditAction;
  actor: { id: string | null; label: string | null } | null;
  target: { id: string | null; label: string | null } | null;
  detail?: Record<string, unknown>;
  ip?: string | null;
}

/** An account as an entry names it: its id and its username at the time. */
export const auditParty = (user: { id: string; username: string }) => ({ id: user.id, label: user.username });

export async function appendAudit(db: Db, record: AuditRecord): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      action: record.action,
      actor_id: record.actor?.id ?? null,
      actor_label: record.actor?.label ?? null,
      target_id: record.target?.id ?? null,
      target_label: record.target?.label ?? null,
      detail: JSON.stringify(record.detail ?? {}),
      ip: record.ip ?? null,
    })
    .execute();
}

export interface AuditFilter {
  action?: AuditAction;
  actorId?: string;
  targetId?: string;
  /** Entries older than this id (the cursor). */
  before?: string;
  limit: number;
}

/** Newest first, at most limit + 1 rows (the extra one says whether a next page exists). */
export async function readAudit(db: Db, filter: AuditFilter): Promise<AuditEntry[]> {
  const rows = await db
    .selectFrom('audit_log')
    .selectAll()
    .$if(filter.action !== undefined, (q) => q.where('action', '=', filter.action!))
    .$if(filter.actorId !== undefined, (q) => q.where('actor_id', '=', filter.actorId!))
    .$if(filter.targetId !== undefined, (q) => q.where('target_id', '=', filter.targetId!))
    .$if(filter.before !== undefined, (q) => q.where('id', '<', sql<string>`${filter.before}::bigint`))
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .execute();
  return rows.map((row) => ({
    id: String(row.id),
    at: row.at.toISOString(),
    action: row.action,
    actor: row.actor_id || row.actor_label ? { id: row.actor_id, label: row.actor_label } : null,
    target: row.target_id || row.target_label ? { id: row.target_id, label: row.target_label } : null,
    detail: row.detail ?? {},
    ip: row.ip,
  }));
}
