// Applying a completed purchase to the current round, once.
import type { PurchaseCompletedV1 } from '@omc/contracts';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import type { Database } from '../db/schema.js';
import { purchaseRound, recordPurchase } from './game.repo.js';
import { KEYS } from './keys.js';
import type { GameRedis } from './redis-commands.js';
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
    const reply = await scripts.applyPurchase(
      [KEYS.game, KEYS.purchases],
      [
        purchase.purchaseId,
        purchase.userId,
        purchase.clicks ?? 0,
        purchase.unlimited ? 1 : 0,
        purchase.potShareCents,
        purchase.packId,
      ],
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
    await recordPurchase(db, {
      id: purchase.purchaseId,
      userId: purchase.userId,
      round: reply.round,
      clicks: purchase.clicks ?? 0,
      unlimited: purchase.unlimited,
      potShareCents: purchase.potShareCents,
      packId: purchase.packId,
    });
    if (reply.outcome === 'applied') hooks.onStateChanged?.();
    return reply.round;
  }
  throw new Error('purchase could not be applied');
}
