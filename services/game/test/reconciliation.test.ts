// The outbox is the record, the bus is the doorbell. A purchase payments completed whose event never
// reached the game (simulated: payments' record has it, nothing is published) is applied by the next
// reconciliation pass, once; and the game serves its record of won rounds, which payments credits from.
import { INTERNAL_WINS_PATH, type InternalPurchase } from '@omc/contracts';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, internalCallHeaders } from '@omc/testkit';
import { KEYS } from '../src/engine/keys.js';
import { prunePurchaseMarks } from '../src/purchases/purchase-marks.js';
import { startGame, type Harness } from './support.js';

/** Payments' GET /internal/purchases/completed, answering from a list a test fills. */
async function paymentsStandIn() {
  const server = Fastify({ logger: false, forceCloseConnections: true });
  const purchases: InternalPurchase[] = [];
  server.get<{ Querystring: { since: string; afterAt?: string; afterId?: string; limit?: string } }>(
    '/internal/purchases/completed',
    async (request) => {
      const { since, afterAt, afterId, limit } = request.query;
      const key = (p: InternalPurchase) => `${p.completedAt}|${p.purchaseId}`;
      return {
        purchases: purchases
          .filter((p) => p.completedAt >= since && (!afterAt || key(p) > `${afterAt}|${afterId}`))
          .sort((a, b) => key(a).localeCompare(key(b)))
          .slice(0, Number(limit ?? 200)),
      };
    },
  );
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
  return { url, purchases, close: () => server.close() };
}

describe('reconciliation with the producers’ records', () => {
  let h: Harness;
  let payments: Awaited<ReturnType<typeof paymentsStandIn>>;

  beforeAll(async () => {
    payments = await paymentsStandIn();
    h = await startGame({
      name: 'reconcile',
      env: {
        PAYMENTS_URL: payments.url,
        EVENT_RECONCILE_INTERVAL_MS: '0',
        ROUND_TARGET: '5',
        MILESTONES: '',
      },
    });
  });
  afterAll(async () => {
    await h?.close();
    await payments?.close();
  });

  it('applies a completed purchase whose event was lost, once, at the next pass', async () => {
    const buyer = await h.registerUser();
    const before = await h.balance(buyer);
    const potBefore = (await h.state(buyer)).pot ?? 0;
    // Payments completed it and wrote its event to the outbox; the event never reached the game.
    const event = h.purchaseEvent(buyer, 'clicks100', 50);
    payments.purchases.push({ ...event.data, completedAt: new Date().toISOString() });
    expect((await h.balance(buyer)).purchasedClicks).toBe(before.purchasedClicks);

    expect(await h.app.game.reconcilePurchases()).toBe(1);
    expect((await h.balance(buyer)).purchasedClicks).toBe(before.purchasedClicks + 100);
    expect((await h.state(buyer)).pot).toBeCloseTo(potBefore + 0.5);

    // Another pass, and then the late event itself: nothing more.
    expect(await h.app.game.reconcilePurchases()).toBe(0);
    await h.publish(event);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await h.balance(buyer)).purchasedClicks).toBe(before.purchasedClicks + 100);
    expect((await h.state(buyer)).pot).toBeCloseTo(potBefore + 0.5);
  });

  it("bounds Redis' purchase marks: a recorded purchase's mark goes after an hour, and its late event credits nothing", async () => {
    const buyer = await h.registerUser();
    const event = h.purchaseEvent(buyer, 'clicks500', 100);
    await h.publish(event);
    await eventually(async () => (await h.balance(buyer)).purchasedClicks === 500, 'purchase applied');
    const { db, redis } = h.app.game.deps;
    expect(await redis.hexists(KEYS.purchases, event.data.purchaseId)).toBe(1);
    // Within the hour the mark stays (an application may be racing); after it, it goes.
    expect(await prunePurchaseMarks(db, redis, Date.now())).toBe(0);
    expect(await prunePurchaseMarks(db, redis, Date.now() + 2 * 3_600_000)).toBeGreaterThanOrEqual(1);
    expect(await redis.hexists(KEYS.purchases, event.data.purchaseId)).toBe(0);
    // The same event again, past JetStream's duplicate window: Postgres' record keeps it from counting twice.
    await h.publish(event, `${event.id}-redelivered`);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await h.balance(buyer)).purchasedClicks).toBe(500);
  });

  it("serves the round's recorded win to payments, and 404 for a round nobody won", async () => {
    const admin = await h.registerUser('admin', 'winner');
    await h.clickTimes(admin, 5, 1);
    await h.flushJournal();
    const fromPayments = internalCallHeaders('payments', 'game');
    const list = await h.app.inject({
      headers: fromPayments,
      url: `${INTERNAL_WINS_PATH}?since=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`,
    });
    expect(list.statusCode).toBe(200);
    const wins = list.json().wins as { round: number; winnerUserId: string; potCents: number }[];
    const won = wins.find((w) => w.winnerUserId === admin.id);
    expect(won).toBeDefined();
    const one = await h.app.inject({ url: `${INTERNAL_WINS_PATH}/${won!.round}`, headers: fromPayments });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ round: won!.round, winnerUserId: admin.id, potCents: won!.potCents });
    const none = await h.app.inject({
      url: `${INTERNAL_WINS_PATH}/${won!.round + 1000}`,
      headers: fromPayments,
    });
    expect(none.statusCode).toBe(404);
    expect(none.json().message).toMatch(/no recorded win/);
    const bad = await h.app.inject({ url: `${INTERNAL_WINS_PATH}/not-a-round`, headers: fromPayments });
    expect(bad.statusCode).toBe(400);
  });
});
