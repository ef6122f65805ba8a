// Purchases in the round: a completed purchase applied to the current round, once, and a refunded one
// taken back, once. Each is a Redis script (purchase.scripts.ts, take-back.scripts.ts) and its Postgres record,
// one step for a rebuild (engine/rebuild-fence.ts). The consumer of payments' events, the reconciler and
// payments' take-back call (take-back.routes.ts) call in here.
import type { PurchaseCompletedV1 } from '@omc/contracts';
import type { Kysely, Transaction } from 'kysely';
import type { z } from 'zod';
import { purchaseRound, recordedTakeBack, recordPurchase, recordTakeBack } from './purchases.repo.js';
import type { Database } from '../db/schema.js';
import { KEYS } from '../engine/keys.js';
import type { TakeBackFigures } from './take-back.scripts.js';
import type { GameRedis } from '../engine/redis-commands.js';
import { underRebuildFence, type Done } from '../engine/rebuild-fence.js';
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
    const known = await purchaseRound(this.db, purchase.purchaseId);
    if (known !== undefined) return known;
    // Money goes only into a Redis that is not behind Postgres (one that went back is rebuilt first).
    await this.state.verify();
    const reply = await this.settle(
      purchase.userId,
      { unknown: 'purchase', failed: 'purchase could not be applied' },
      () =>
        this.scripts.applyPurchase(
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
    if (reply.outcome === 'applied') this.hooks.onStateChanged?.();
    return reply.round;
  }

  /**
   * Takes back, once, what a refunded purchase gave (take-back.scripts.ts): applied first if its event has not
   * arrived, so a refund racing its own purchase still leaves nothing of it. The same answer on every call.
   */
  async takeBack(purchase: Purchase): Promise<TakeBackFigures> {
    const recorded = await recordedTakeBack(this.db, purchase.purchaseId);
    if (recorded) {
      const { id: _id, userId: _userId, ...figures } = recorded;
      return figures;
    }
    const round = (await purchaseRound(this.db, purchase.purchaseId)) ?? (await this.apply(purchase));
    await this.state.verify();
    const reply = await this.settle(
      purchase.userId,
      { unknown: 'take-back', failed: 'the purchase could not be taken back' },
      () =>
        this.scripts.takeBackPurchase(
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
    const { outcome: _outcome, ...figures } = reply;
    if (reply.outcome === 'taken' && (figures.clicks > 0 || figures.pass || figures.potCents > 0))
      this.hooks.onStateChanged?.();
    return figures;
  }

  /**
   * A purchase's Redis step and its record under the rebuild fence, again until Redis settles it: a
   * missing state is rebuilt, a buyer Redis lacks is loaded (an error while Postgres lacks the buyer too).
   */
  private async settle<R extends { outcome: string }>(
    userId: string,
    words: { unknown: string; failed: string },
    redisStep: () => Promise<R>,
    record: (trx: Transaction<Database>, reply: Done<R>) => Promise<unknown>,
  ): Promise<Done<R>> {
    for (let attempt = 0; attempt < 4; attempt++) {
      const reply = await underRebuildFence(this.db, this.hooks, redisStep, record);
      if (reply.outcome === 'state_missing') {
        await this.state.ensure();
        continue;
      }
      if (reply.outcome === 'user_not_loaded') {
        const unknown = await this.users.ensure([userId], true);
        if (unknown.has(userId)) throw new Error(`${words.unknown} for user ${userId}, who is not known yet`);
        continue;
      }
      return reply as Done<R>;
    }
    throw new Error(words.failed);
  }
}
