// Payments finishes a refund by itself when the game was away during the admin's request: it calls the
// take-back without an admin's token, and the game takes back only what payments' record of the refund
// confirms (its money went back, the purchase as payments recorded it); a caller without a token gets
// nothing else. Every call carries payments' service credential, as the route's contract asks.
import { internalTakeBackPath, type InternalRefundState } from '@omc/contracts';
import { eventually, internalCallHeaders } from '@omc/testkit';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGame, type Harness } from './support.js';

/** Payments' GET /internal/refunds/:id, answering from a map a test fills. */
async function paymentsStandIn() {
  const server = Fastify({ logger: false, forceCloseConnections: true });
  const refunds = new Map<string, InternalRefundState>();
  server.get<{ Params: { id: string } }>('/internal/refunds/:id', async (request, reply) => {
    const refund = refunds.get(request.params.id);
    return refund ?? reply.status(404).send({ message: 'No refund' });
  });
  const url = await server.listen({ port: 0, host: '127.0.0.1' });
  return { url, refunds, close: () => server.close() };
}

describe('a take-back payments finishes by itself', () => {
  let h: Harness;
  let payments: Awaited<ReturnType<typeof paymentsStandIn>>;

  beforeAll(async () => {
    payments = await paymentsStandIn();
    h = await startGame({
      name: 'takeback-unattended',
      env: {
        PAYMENTS_URL: payments.url,
        ROUND_TARGET: '40',
        MILESTONES: '',
        EVENT_RECONCILE_INTERVAL_MS: '0',
      },
    });
  });
  afterAll(async () => {
    await h?.close();
    await payments?.close();
  });

  const takeBack = (body: object, purchaseId: string) =>
    h.app.game.internal.inject({
      method: 'POST',
      url: internalTakeBackPath(purchaseId),
      payload: body,
      headers: internalCallHeaders('payments', 'game'),
    });

  it('takes back a refund whose money payments holds as returned, and nothing else', async () => {
    const buyer = await h.registerUser();
    const event = h.purchaseEvent(buyer, 'clicks100', 50);
    await h.publish(event);
    await eventually(async () => (await h.balance(buyer)).purchasedClicks === 100, 'purchase applied');

    // No refund at payments: refused, nothing taken.
    expect((await takeBack(event.data, event.data.purchaseId)).statusCode).toBe(403);
    // A refund still asking Braintree: refused.
    payments.refunds.set(event.data.purchaseId, {
      purchaseId: event.data.purchaseId,
      status: 'returning',
      purchase: event.data,
    });
    expect((await takeBack(event.data, event.data.purchaseId)).statusCode).toBe(403);
    // The money went back, but the body inflates the pot share: refused.
    payments.refunds.set(event.data.purchaseId, {
      purchaseId: event.data.purchaseId,
      status: 'returned',
      purchase: event.data,
    });
    const forged = await takeBack({ ...event.data, potShareCents: 5000 }, event.data.purchaseId);
    expect(forged.statusCode).toBe(403);
    expect(forged.json().message).toMatch(/not the one payments recorded/);
    expect((await h.balance(buyer)).purchasedClicks).toBe(100);

    const done = await takeBack(event.data, event.data.purchaseId);
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ clicks: 100, potCents: 50 });
    expect((await h.balance(buyer)).purchasedClicks).toBe(0);
  });

  it('answers 503 when payments cannot confirm, taking nothing', async () => {
    const buyer = await h.registerUser();
    const event = h.purchaseEvent(buyer, 'clicks100', 50);
    await h.publish(event);
    await eventually(async () => (await h.balance(buyer)).purchasedClicks === 100, 'purchase applied');
    await payments.close();
    const answer = await takeBack(event.data, event.data.purchaseId);
    expect(answer.statusCode).toBe(503);
    expect((await h.balance(buyer)).purchasedClicks).toBe(100);
  });
});
