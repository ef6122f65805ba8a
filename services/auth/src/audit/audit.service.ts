// The audit log as the operator reads it: filtered, newest first, paged by an opaque cursor.
import type { AuditPage, AuditQuery } from '@omc/contracts';
import { badRequest } from '@omc/service-kit';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { readAudit } from './audit.repo.js';

export const DEFAULT_PAGE = 50;

export async function auditPage(db: Kysely<Database>, query: AuditQuery): Promise<AuditPage> {
  const limit = query.limit ?? DEFAULT_PAGE;
  let before: string | undefined;
  if (query.cursor) {
    before = Buffer.from(query.cursor, 'base64url').toString('utf8');
    if (!/^\d{1,18}$/.test(before))
      throw badRequest('cursor must be the nextCursor of a previous page', 'cursor');
  }
  const rows = await readAudit(db, { ...query, before, limit });
  const entries = rows.slice(0, limit);
  const more = rows.length > limit;
  return {
    entries,
    nextCursor: more ? Buffer.from(entries.at(-1)!.id).toString('base64url') : null,
  };
}
