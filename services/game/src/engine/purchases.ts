// Applying a completed purchase to the current round, once.
import type { PurchaseCompletedV1 } from '@omc/contracts';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import {
  purchaseRound,
  purchasesRecordedBefore,
  recordedTakeBack,
  recordPurchase,
  recordTakeBack,
} from '../db/purchases.repo.js';
import type { Database } from '../db/schema.js';
import type { TakeBackFigures } from './redis/take-back.js';
import { KEYS } from './keys.js';
import type { GameRedis } from './redis-commands.js';
import { underRebuildFence } from './rebuild-fence.js';
import type { RoundState } from './round-state.js';
import type { EngineHooks } from './types.js';
import type { UserStore } from './user-store.js';

/** Adds a purchase's clicks (or pass) and pot share to the current round, once. Returns its round. */
export async function applyPurchase(
  parts: {
    db: Kysely<Database>;
    scripts: GameRedis;
    state: RoundState;
    users: UserStore;
    hooks: EngineHooks;
  },
  purchase: z.infer<typeof PurchaseCompletedV1>,
): Promise<number> {
  const { db, scripts, state, users, hooks } = parts;
  const known = await purchaseRound(db, purchase.purchaseId);
  if (known !== undefined) return known;
  // Money goes only into a Redis that is not behind Postgres (one that went back is rebuilt first).
  await state.verify();
  for (let attempt = 0; attempt < 4; attempt++) {
    const reply = await underRebuildFence(
      db,
      hooks,
      () =>
        scripts.applyPurchase(
          [KEYS.game, KEYS.purchases],
          [
            purchase.purchaseId,
            purchase.userId,
            purchase.clicks ?? 0,
            purchase.unlimited ? 1 : 0,
            purchase.potShareCents,
            purchase.packId,
          ],
        ),
      (trx, applied) =>
        recordPurchase(trx, {
          id: purchase.purchaseId,
          userId: purchase.userId,
          round: applied.round,
          clicks: purchase.clicks ?? 0,
          unlimited: purchase.unlimited,
          potShareCents: purchase.potShareCents,
          packId: purchase.packId,
        }),
    );
    if (reply.outcome === 'state_missing') {
      await state.ensure();
      continue;
    }
    if (reply.outcome === 'user_not_loaded') {
      const unknown = await users.ensure([purchase.userId], true);
      if (unknown.has(purchase.userId))
        throw new Error(`purchase for user ${purchase.userId}, who is not known yet`);
      continue;
    }
    if (reply.outcome === 'applied') hooks.onStateChanged?.();
    return reply.round;
  }
  throw new Error('purchase could not be applied');
}

/**
 * Takes back, once, what a refunded purchase gave (redis/take-back.ts): applied first if its event has not
 * arrived, so a refund racing its own purchase still leaves nothing of it. The same answer on every call.
 */
export async function takeBackPurchase(
  parts: Parameters<typeof applyPurchase>[0],
  purchase: z.infer<typeof PurchaseCompletedV1>,
): Promise<TakeBackFigures> {
  const { db, scripts, state, users, hooks } = parts;
  const recorded = await recordedTakeBack(db, purchase.purchaseId);
  if (recorded) {
    const { id: _id, userId: _userId, ...figures } = recorded;
    return figures;
  }
  const round = (await purchaseRound(db, purchase.purchaseId)) ?? (await applyPurchase(parts, purchase));
  await state.verify();
  for (let attempt = 0; attempt < 4; attempt++) {
    const reply = await underRebuildFence(
      db,
      hooks,
      () =>
        scripts.takeBackPurchase(
          [KEYS.game, KEYS.purchases],
          [
            purchase.purchaseId,
            purchase.userId,
            round,
            purchase.clicks ?? 0,
            purchase.unlimited ? 1 : 0,
            purchase.potShareCents,
          ],
        ),
      // Recorded before the answer: the journal's copy may not outlive Redis.
      (trx, taken) => {
        const { outcome: _outcome, ...figures } = taken;
        return recordTakeBack(trx, { id: purchase.purchaseId, userId: purchase.userId, ...figures });
      },
    );
    if (reply.outcome === 'state_missing') {
      await state.ensure();
      continue;
    }
    if (reply.outcome === 'user_not_loaded') {
      const unknown = await users.ensure([purchase.userId], true);
      if (unknown.has(purchase.userId))
        throw new Error(`take-back for user ${purchase.userId}, who is not known yet`);
      continue;
    }
    const { outcome: _outcome, ...figures } = reply;
    if (reply.outcome === 'taken' && (figures.clicks > 0 || figures.pass || figures.potCents > 0))
      hooks.onStateChanged?.();
    return figures;
  }
  throw new Error('the purchase could not be taken back');
}

/** How long a purchase stays in Redis' purchases hash after Postgres recorded it. */
export const PURCHASE_MARK_RETENTION_MS = 60 * 60_000;

/**
 * Bounds Redis' purchases hash: a purchase Postgres recorded longer than `retentionMs` ago is dropped from
 * it (a late redelivery of its event finds Postgres' record first and changes nothing); those not yet
 * recorded, or recorded a moment ago (an application may be racing), stay. Returns how many went.
 */
export async function prunePurchaseMarks(
  db: Kysely<Database>,
  redis: Redis,
  now: number,
  retentionMs = PURCHASE_MARK_RETENTION_MS,
): Promise<number> {
  let cursor = '0';
  let removed = 0;
  do {
    const [next, flat] = await redis.hscan(KEYS.purchases, cursor, 'COUNT', 500);
    cursor = next;
    const ids = flat.filter((_, i) => i % 2 === 0).filter((id) => UUID.test(id));
    if (ids.length === 0) continue;
    const old = await purchasesRecordedBefore(db, ids, new Date(now - retentionMs));
    if (old.length > 0) removed += await redis.hdel(KEYS.purchases, ...old);
  } while (cursor !== '0');
  return removed;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
