// A player's purchases (with their refunds) and payouts, newest first, paged by (created_at, id).
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../db/schema.js';

export interface PageCursor {
  at: Date;
  id: string;
}

export function encodeCursor(row: { created_at: Date | string; id: string }): string {
  return Buffer.from(`${new Date(row.created_at).toISOString()}|${row.id}`).toString('base64url');
}

/** undefined when the text is no cursor this service wrote. */
export function decodeCursor(cursor: string): PageCursor | undefined {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const date = new Date(at ?? '');
  if (!id || Number.isNaN(date.getTime()) || !/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  return { at: date, id };
}

export type PurchaseWithRefund = Selectable<Database['purchases']> & {
  refund: Selectable<Database['refunds']> | null;
  clawback: Selectable<Database['clawbacks']> | null;
};

export async function playerPurchases(
  db: Kysely<Database>,
  userId: string,
  page: { after?: PageCursor; limit: number },
): Promise<PurchaseWithRefund[]> {
  let query = db
    .selectFrom('purchases')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit);
  if (page.after)
    query = query.where(sql<boolean>`(created_at, id) < (${page.after.at}, ${page.after.id}::uuid)`);
  const purchases = await query.execute();
  if (purchases.length === 0) return [];
  const refunds = await db
    .selectFrom('refunds')
    .selectAll()
    .where(
      'purchase_id',
      'in',
      purchases.map((p) => p.id),
    )
    .execute();
  const clawbacks = await db
    .selectFrom('clawbacks')
    .selectAll()
    .where(
      'purchase_id',
      'in',
      purchases.map((p) => p.id),
    )
    .execute();
  const byPurchase = new Map(refunds.map((r) => [r.purchase_id, r]));
  const clawedBack = new Map(clawbacks.map((c) => [c.purchase_id, c]));
  return purchases.map((p) => ({
    ...p,
    refund: byPurchase.get(p.id) ?? null,
    clawback: clawedBack.get(p.id) ?? null,
  }));
}

export async function playerPayouts(
  db: Kysely<Database>,
  userId: string,
  page: { after?: PageCursor; limit: number },
): Promise<Selectable<Database['payouts']>[]> {
  let query = db
    .selectFrom('payouts')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit);
  if (page.after)
    query = query.where(sql<boolean>`(created_at, id) < (${page.after.at}, ${page.after.id}::uuid)`);
  return query.execute();
}
