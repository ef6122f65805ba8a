// Purchases and their take-backs, and what each player bought for a round (user_rounds).
import { sql } from 'kysely';
import type { Db } from '../db/db.js';
import type { PurchaseRecord, TakeBackRecord } from '../db/records.js';

export interface UserRoundRow {
  purchased: number;
  pass: boolean;
}

export async function findUserRounds(
  db: Db,
  ids: string[],
  round: number,
): Promise<Map<string, UserRoundRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('user_rounds')
    .select(['user_id', 'purchased_clicks', 'purchased_spent', 'pass'])
    .where('user_id', 'in', ids)
    .where('round', '=', round)
    .execute();
  return new Map(
    rows.map((r) => [
      r.user_id,
      { purchased: Math.max(0, Number(r.purchased_clicks) - Number(r.purchased_spent)), pass: r.pass },
    ]),
  );
}

/** Records a purchase and credits its clicks or pass to its round, once per purchase id. */
export async function recordPurchase(db: Db, purchase: PurchaseRecord): Promise<boolean> {
  const inserted = await db
    .insertInto('purchases')
    .values({
      purchase_id: purchase.id,
      user_id: purchase.userId,
      round: purchase.round,
      pack_id: purchase.packId,
      clicks: purchase.unlimited ? null : purchase.clicks,
      unlimited: purchase.unlimited,
      pot_share_cents: purchase.potShareCents,
    })
    .onConflict((oc) => oc.column('purchase_id').doNothing())
    .returning('purchase_id')
    .executeTakeFirst();
  if (!inserted) return false;
  await db
    .insertInto('user_rounds')
    .values({
      user_id: purchase.userId,
      round: purchase.round,
      purchased_clicks: purchase.unlimited ? 0 : purchase.clicks,
      pass: purchase.unlimited,
    })
    .onConflict((oc) =>
      oc.columns(['user_id', 'round']).doUpdateSet((eb) => ({
        purchased_clicks: eb('user_rounds.purchased_clicks', '+', eb.ref('excluded.purchased_clicks')),
        pass: sql<boolean>`user_rounds.pass or excluded.pass`,
      })),
    )
    .execute();
  return true;
}

/**
 * Records a refunded purchase's take-back once per purchase id, and removes its clicks or pass from the
 * buyer's round (what a rebuild loads). Returns false when it was recorded before.
 */
export async function recordTakeBack(db: Db, takeback: TakeBackRecord): Promise<boolean> {
  const inserted = await db
    .insertInto('purchase_takebacks')
    .values({
      purchase_id: takeback.id,
      user_id: takeback.userId,
      round: takeback.round,
      round_in_play: takeback.roundInPlay,
      clicks: takeback.clicks,
      pass: takeback.pass,
      pot_cents: takeback.potCents,
    })
    .onConflict((oc) => oc.column('purchase_id').doNothing())
    .returning('purchase_id')
    .executeTakeFirst();
  if (!inserted || (takeback.clicks === 0 && !takeback.pass)) return Boolean(inserted);
  await db
    .updateTable('user_rounds')
    .set((eb) => ({
      purchased_clicks: eb('purchased_clicks', '-', takeback.clicks),
      pass: takeback.pass ? false : eb.ref('pass'),
    }))
    .where('user_id', '=', takeback.userId)
    .where('round', '=', takeback.round)
    .execute();
  return true;
}

/** A purchase's take-back as recorded; undefined when it has none. */
export async function recordedTakeBack(db: Db, purchaseId: string): Promise<TakeBackRecord | undefined> {
  const row = await db
    .selectFrom('purchase_takebacks')
    .selectAll()
    .where('purchase_id', '=', purchaseId)
    .executeTakeFirst();
  return row
    ? {
        id: row.purchase_id,
        userId: row.user_id,
        round: Number(row.round),
        roundInPlay: row.round_in_play,
        clicks: Number(row.clicks),
        pass: row.pass,
        potCents: Number(row.pot_cents),
      }
    : undefined;
}

export async function purchaseRound(db: Db, purchaseId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('purchases')
    .select('round')
    .where('purchase_id', '=', purchaseId)
    .executeTakeFirst();
  return row ? Number(row.round) : undefined;
}

export async function addPurchasedSpent(
  db: Db,
  spends: { userId: string; round: number; spent: number }[],
): Promise<void> {
  if (spends.length === 0) return;
  await sql`insert into user_rounds (user_id, round, purchased_spent)
    select * from unnest(${spends.map((s) => s.userId)}::uuid[], ${spends.map((s) => s.round)}::bigint[], ${spends.map((s) => s.spent)}::bigint[])
    on conflict (user_id, round) do update set purchased_spent = user_rounds.purchased_spent + excluded.purchased_spent`.execute(
    db,
  );
}

/** The purchases among `ids` Postgres has recorded. */
export async function knownPurchases(db: Db, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('purchases')
    .select('purchase_id')
    .where('purchase_id', 'in', ids)
    .execute();
  return new Set(rows.map((r) => r.purchase_id));
}

/** The purchases among `ids` Postgres recorded before `before`. */
export async function purchasesRecordedBefore(db: Db, ids: string[], before: Date): Promise<string[]> {
  const rows = await db
    .selectFrom('purchases')
    .select('purchase_id')
    .where('purchase_id', 'in', ids)
    .where('applied_at', '<', before)
    .execute();
  return rows.map((r) => r.purchase_id);
}
