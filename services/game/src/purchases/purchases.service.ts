// Purchases in the round: a completed purchase applied to the current round, once, and a refunded one
// taken back, once. Each is a Redis script (engine/redis/purchase.ts, take-back.ts) and its Postgres record,
// one step for a rebuild (engine/rebuild-fence.ts). The consumer of payments' events, the reconciler and
// payments' take-back call (users/take-back.routes.ts) call in here.
import type { PurchaseCompletedV1 } from '@omc/contracts';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import { purchaseRound, recordedTakeBack, recordPurchase, recordTakeBack } from '../db/purchases.repo.js';
import type { Database } from '../db/schema.js';
import { KEYS } from '../engine/keys.js';
import type { TakeBackFigures } from '../engine/redis/take-back.js';
import type { GameRedis } from '../engine/redis-commands.js';
import { underRebuildFence } from '../engine/rebuild-fence.js';
import type { RoundState } from '../engine/round-state.js';
import type { EngineHooks, UserLoader } from '../engine/types.js';

type Purchase = z.infer<typeof PurchaseCompletedV1>;

export class PurchasesService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly scripts: GameRedis,
    private readonly state: RoundState,
    private readonly users: UserLoader,
    private readonly hooks: EngineHooks,
  ) {}

  /** Adds a purchase's clicks (or pass) and pot share to the current round, once. Returns its round. */
  async apply(purchase: Purchase): Promise<number> {
    const { db, scripts, state, users, hooks } = this;
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
  async takeBack(purchase: Purchase): Promise<TakeBackFigures> {
    const { db, scripts, state, users, hooks } = this;
    const recorded = await recordedTakeBack(db, purchase.purchaseId);
    if (recorded) {
      const { id: _id, userId: _userId, ...figures } = recorded;
      return figures;
    }
    const round = (await purchaseRound(db, purchase.purchaseId)) ?? (await this.apply(purchase));
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
}
