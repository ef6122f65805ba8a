// A purchase and a take-back are one step for a rebuild: a rebuild of the Redis state (by any instance)
// that comes between the Redis step and its Postgres record waits for the record, so the state it builds
// holds the purchase (the buyer keeps the clicks, the pot its share) or the take-back (the refunded pot
// share cannot be won). The rebuild is started, deterministically, between the two steps.
import { sql } from 'kysely';
import { eventually } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGameServices, closeGameServices, type GameServices } from '../src/context.js';
import { KEYS } from '../src/engine/keys.js';
import { startGame, type Harness } from './support.js';

describe('a rebuild between a purchase’s Redis step and its record', () => {
  let h: Harness;
  /** Another instance's services, on the same stores. */
  let other: GameServices;
  /** Set by a test: what runs between the Redis step and the record. */
  let between: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    // No journal flush and no fence check of their own: only the rebuild the test starts.
    h = await startGame({
      name: 'purchase-fence',
      env: { JOURNAL_FLUSH_MS: '600000', FENCE_CHECK_MS: '600000' },
    });
    const { deps } = h.app.game;
    other = buildGameServices(deps, { beforeStateRecord: () => between?.() });
  });
  afterAll(async () => {
    if (other) await closeGameServices(other);
    await h?.close();
  });

  /** Another instance finds the state stale and rebuilds it from Postgres; resolves once it has. */
  async function rebuildNow(): Promise<{ rebuilt: Promise<void> }> {
    const { deps } = h.app.game;
    const epoch = (await deps.redis.hget(KEYS.game, 'epoch'))!;
    let done = false;
    const rebuilt = h.app.game.engine
      .replaceStaleState({ epoch, reason: 'rebuilt by the test', proven: true })
      .finally(() => (done = true));
    // It has run, or it waits for the lock that this step holds.
    await eventually(async () => {
      if (done) return true;
      const { rows } = await sql<{ waiting: number }>`
        select count(*)::int as waiting from pg_locks where locktype = 'advisory' and not granted`.execute(
        deps.db,
      );
      return rows[0]!.waiting > 0;
    }, 'the rebuild ran or waits for the fence');
    return { rebuilt };
  }

  it('keeps a purchase: the buyer’s clicks and the pot’s share', async () => {
    const buyer = await h.registerUser();
    const before = await h.balance(buyer);
    const potBefore = (await h.state()).pot ?? 0;
    let rebuilt: Promise<void> | undefined;
    between = async () => {
      between = undefined;
      ({ rebuilt } = await rebuildNow());
    };
    await other.purchases.apply(h.purchaseEvent(buyer, 'clicks100', 50).data);
    expect(rebuilt).toBeDefined();
    await rebuilt;

    expect(await h.balance(buyer)).toMatchObject({
      purchasedClicks: 100,
      freeClicks: before.freeClicks + 100,
    });
    expect((await h.state()).pot).toBeCloseTo(potBefore + 0.5);
  });

  it('keeps a take-back: the refunded clicks and pot share stay taken', async () => {
    const buyer = await h.registerUser();
    const before = await h.balance(buyer);
    const potBefore = (await h.state()).pot ?? 0;
    const purchase = h.purchaseEvent(buyer, 'clicks500', 70).data;
    await other.purchases.apply(purchase);
    expect((await h.state()).pot).toBeCloseTo(potBefore + 0.7);

    let rebuilt: Promise<void> | undefined;
    between = async () => {
      between = undefined;
      ({ rebuilt } = await rebuildNow());
    };
    expect(await other.purchases.takeBack(purchase)).toMatchObject({ clicks: 500, potCents: 70 });
    expect(rebuilt).toBeDefined();
    await rebuilt;

    expect(await h.balance(buyer)).toMatchObject({ purchasedClicks: 0, freeClicks: before.freeClicks });
    expect((await h.state()).pot).toBeCloseTo(potBefore);
  });
});
