// Checkout with the real braintree SDK against the emulator: what the buyer sees, what the provider
// charged (the emulator's own record), what the ledger holds, and what was announced.
import { PACKS, SUBJECTS, formatEuroAmount } from '@omc/contracts';
import { eventually } from '@omc/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACCOUNTS } from '../src/ledger/accounts.js';
import { balance } from '../src/ledger/ledger.repo.js';
import { newUserId, startHarness, type Harness } from './harness.js';

describe('checkout', () => {
  let h: Harness;
  let userId: string;
  let token: string;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(async () => {
    userId = newUserId();
    token = await h.token({ sub: userId });
  });
  afterEach(async () => h.assertLedgerBalances());

  const checkout = (body: Record<string, unknown>, bearer = token) =>
    h.app.inject({
      method: 'POST',
      url: '/api/payments/checkout',
      headers: { authorization: `Bearer ${bearer}` },
      payload: body,
    });

  const purchaseEvents = (forUser: string) =>
    h.published.filter(
      (e) => e.subject === SUBJECTS.purchaseCompleted && (e.data as { userId: string }).userId === forUser,
    );

  it('gives a client token from the emulator, labelled as such, to guests too', async () => {
    const response = await h.app.inject('/api/payments/token');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ clientToken: expect.any(String), environment: 'emulator' });
  });

  it('charges each pack its price once and splits it exactly between the pot and the house', async () => {
    for (const pack of PACKS) {
      const key = `pack-${pack.id}-${randomUUID()}`;
      const response = await checkout({
        paymentMethodNonce: 'fake-valid-nonce',
        amount: formatEuroAmount(pack.priceCents),
        idempotencyKey: key,
      });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toMatchObject({ success: true, transactionId: expect.any(String), clicks: pack.clicks });
      const charged = (await h.emulator.client.charges()).filter((t) => t.id === body.transactionId);
      expect(charged).toEqual([
        expect.objectContaining({ amountCents: pack.priceCents, status: 'submitted_for_settlement' }),
      ]);
    }
    await eventually(() => purchaseEvents(userId).length === PACKS.length, 'purchase completed events');
    const events = purchaseEvents(userId).map(
      (e) =>
        e.data as {
          packId: string;
          clicks: number | null;
          unlimited: boolean;
          amountCents: number;
          potShareCents: number;
          houseShareCents: number;
        },
    );
    for (const pack of PACKS) {
      const event = events.find((e) => e.packId === pack.id)!;
      expect(event).toMatchObject({
        clicks: pack.clicks,
        unlimited: pack.clicks === null,
        amountCents: pack.priceCents,
      });
      expect(event.potShareCents).toBe(Math.floor((pack.priceCents * 50) / 100));
      expect(event.potShareCents + event.houseShareCents).toBe(pack.priceCents);
    }
    const total = PACKS.reduce((sum, p) => sum + p.priceCents, 0);
    const pot = PACKS.reduce((sum, p) => sum + Math.floor(p.priceCents / 2), 0);
    expect(await balance(h.deps.db, ACCOUNTS.roundPot)).toBe(pot);
    expect(await balance(h.deps.db, ACCOUNTS.house)).toBe(total - pot);
    expect(await balance(h.deps.db, ACCOUNTS.braintreeCashIn)).toBe(-total);
  });

  it('refuses an amount that is not a pack price, naming the amount, and charges nothing', async () => {
    const before = (await h.emulator.client.transactions()).length;
    for (const amount of ['0.01', '1.00', '9.98', '100.00']) {
      const response = await checkout({ paymentMethodNonce: 'fake-valid-nonce', amount });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        field: 'amount',
        message: expect.stringContaining('amount'),
        error: expect.stringContaining('amount'),
      });
    }
    const malformed = await checkout({ paymentMethodNonce: 'fake-valid-nonce', amount: '-0.99' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().message).toMatch(/amount/);
    expect((await h.emulator.client.transactions()).length).toBe(before);
    expect(purchaseEvents(userId)).toHaveLength(0);
  });

  it('charges nothing to a deleted account whose token is still valid, as soon as auth deleted it', async () => {
    await h.publish(SUBJECTS.userRegistered, {
      userId,
      username: 'gone_soon',
      email: 'gone@example.com',
      role: 'standard',
      preferredLanguage: 'es',
    });
    // Deleted in auth; the event has not reached payments, and need not.
    h.auth.deleted.add(userId);
    const before = (await h.emulator.client.transactions()).length;
    const response = await checkout({ paymentMethodNonce: 'fake-valid-nonce', amount: '0.99' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ message: 'This account no longer exists' });
    expect((await h.emulator.client.transactions()).length).toBe(before);
    expect(purchaseEvents(userId)).toHaveLength(0);
  });

  it('needs a signed-in buyer', async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/payments/checkout',
      payload: { paymentMethodNonce: 'fake-valid-nonce', amount: '0.99' },
    });
    expect(response.statusCode).toBe(401);
  });

  it('answers a decline with success false and a clear message, credits nothing and announces nothing', async () => {
    const response = await checkout({
      paymentMethodNonce: 'fake-processor-declined-visa-nonce',
      amount: '4.99',
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      success: false,
      error: expect.stringMatching(/declined: Do Not Honor/),
      message: body.error,
      msg: body.error,
    });
    const paypal = await checkout({ paymentMethodNonce: 'not-a-real-nonce', amount: '0.99' });
    expect(paypal.json()).toMatchObject({
      success: false,
      error: expect.stringMatching(/not accepted: Unknown or expired payment_method_nonce/),
    });
    await h.drainOutbox();
    expect(purchaseEvents(userId)).toHaveLength(0);
    expect(await balance(h.deps.db, ACCOUNTS.braintreeCashIn)).toBe(-(await sumOfSucceeded()));
  });

  async function sumOfSucceeded(): Promise<number> {
    const rows = await h.deps.db
      .selectFrom('purchases')
      .select('amount_cents')
      .where('status', '=', 'succeeded')
      .execute();
    return rows.reduce((sum, r) => sum + r.amount_cents, 0);
  }

  it('charges once when the same checkout is sent 20 times at once with one key', async () => {
    const key = `parallel-${randomUUID()}`;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        checkout({ paymentMethodNonce: 'fake-valid-visa-nonce', amount: '1.99', idempotencyKey: key }),
      ),
    );
    const bodies = responses.map((r) => r.json());
    expect(responses.every((r) => r.statusCode === 200)).toBe(true);
    const ids = new Set(bodies.map((b) => b.transactionId));
    expect(bodies.every((b) => b.success === true)).toBe(true);
    expect(ids.size).toBe(1);
    const purchaseId = (
      await h.deps.db
        .selectFrom('purchases')
        .select('id')
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow()
    ).id;
    expect(await h.emulator.client.charges(purchaseId)).toHaveLength(1);
    await h.drainOutbox();
    await eventually(() => purchaseEvents(userId).length >= 1, 'the purchase event');
    expect(purchaseEvents(userId)).toHaveLength(1);
  });

  it('charges once when the same nonce is sent 10 times at once without a key', async () => {
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        checkout({ paymentMethodNonce: 'fake-valid-mastercard-nonce', amount: '0.99' }),
      ),
    );
    expect(new Set(responses.map((r) => r.json().transactionId)).size).toBe(1);
    const purchases = await h.deps.db
      .selectFrom('purchases')
      .selectAll()
      .where('user_id', '=', userId)
      .execute();
    expect(purchases).toHaveLength(1);
    expect(await h.emulator.client.charges(purchases[0]!.id)).toHaveLength(1);
  });

  it('refuses to reuse a key for a different pack', async () => {
    const key = `reuse-${randomUUID()}`;
    expect(
      (await checkout({ paymentMethodNonce: 'fake-valid-nonce', amount: '0.99', idempotencyKey: key })).json()
        .success,
    ).toBe(true);
    const reused = await checkout({
      paymentMethodNonce: 'fake-valid-nonce',
      amount: '9.99',
      idempotencyKey: key,
    });
    expect(reused.statusCode).toBe(409);
    expect(reused.json().message).toMatch(/idempotencyKey/);
  });

  it('charges once when the provider charged but its answer never came, and the buyer retries', async () => {
    await h.emulator.client.fault({
      target: 'braintree.sale',
      kind: 'timeout',
      delayMs: 3000,
      afterEffect: true,
    });
    const key = `timeout-${randomUUID()}`;
    const first = await checkout({
      paymentMethodNonce: 'fake-valid-nonce',
      amount: '4.99',
      idempotencyKey: key,
    });
    // The lost answer is reconciled by order id at once: the charge is found and credited.
    expect(first.json()).toMatchObject({ success: true });
    const retry = await checkout({
      paymentMethodNonce: 'fake-valid-nonce',
      amount: '4.99',
      idempotencyKey: key,
    });
    expect(retry.json()).toEqual(first.json());
    const purchase = await h.deps.db
      .selectFrom('purchases')
      .selectAll()
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(purchase.status).toBe('succeeded');
    expect(await h.emulator.client.charges(purchase.id)).toHaveLength(1);
    await eventually(() => purchaseEvents(userId).length === 1, 'one purchase event');
  });

  it('charges once when the provider timed out before charging, and the retry charges', async () => {
    await h.emulator.client.fault({
      target: 'braintree.sale',
      kind: 'timeout',
      delayMs: 3000,
      afterEffect: false,
    });
    const key = `timeout-none-${randomUUID()}`;
    const first = await checkout({
      paymentMethodNonce: 'fake-valid-nonce',
      amount: '0.99',
      idempotencyKey: key,
    });
    expect(first.statusCode).toBe(502);
    expect(first.json()).toMatchObject({
      success: false,
      error: expect.stringMatching(/retry with the same idempotencyKey/),
    });
    const purchase = await h.deps.db
      .selectFrom('purchases')
      .selectAll()
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(purchase.status).toBe('pending');
    expect(await h.emulator.client.charges(purchase.id)).toHaveLength(0);
    const retry = await checkout({
      paymentMethodNonce: 'fake-valid-nonce',
      amount: '0.99',
      idempotencyKey: key,
    });
    expect(retry.statusCode).toBe(200);
    expect(retry.json()).toMatchObject({ success: true });
    expect(await h.emulator.client.charges(purchase.id)).toHaveLength(1);
    // The buyer retrying again changes nothing.
    expect(
      (
        await checkout({ paymentMethodNonce: 'fake-valid-nonce', amount: '0.99', idempotencyKey: key })
      ).json(),
    ).toEqual(retry.json());
    expect(await h.emulator.client.charges(purchase.id)).toHaveLength(1);
  });

  it('answers 502 with the balance untouched while Braintree is down', async () => {
    await h.emulator.client.fault({ target: 'braintree.sale', kind: 'status', status: 503 });
    await h.emulator.client.fault({ target: 'braintree.search', kind: 'status', status: 503 });
    const response = await checkout({
      paymentMethodNonce: 'fake-valid-nonce',
      amount: '1.99',
      idempotencyKey: `down-${randomUUID()}`,
    });
    expect(response.statusCode).toBe(502);
    expect(response.json()).toMatchObject({ success: false, error: expect.stringMatching(/unavailable/) });
    expect(purchaseEvents(userId)).toHaveLength(0);
  });

  it('credits a purchase left pending by a crash once, when reconciliation finds its charge', async () => {
    // A crash right after Braintree charged: the pending row exists, the charge exists, nobody retries.
    const purchaseId = randomUUID();
    await h.deps.db
      .insertInto('purchases')
      .values({
        id: purchaseId,
        user_id: userId,
        idempotency_key: `crash-${purchaseId}`,
        nonce_hash: 'x',
        pack_id: 'clicks500',
        amount_cents: 199,
        status: 'pending',
        attempts: 1,
      })
      .execute();
    const sale = await h.deps.payments.sale({
      amount: '1.99',
      nonce: 'fake-valid-nonce',
      orderId: purchaseId,
    });
    expect(sale.kind).toBe('approved');
    const first = await h.app.payments.checkout.reconcilePending({ minAgeMs: 0 });
    const second = await h.app.payments.checkout.reconcilePending({ minAgeMs: 0 });
    expect(first.completed).toBe(1);
    expect(second.completed).toBe(0);
    const purchase = await h.deps.db
      .selectFrom('purchases')
      .selectAll()
      .where('id', '=', purchaseId)
      .executeTakeFirstOrThrow();
    expect(purchase.status).toBe('succeeded');
    await eventually(() => purchaseEvents(userId).length === 1, 'one purchase event');
  });

  it('fails a purchase left pending that never reached the provider, crediting nothing', async () => {
    const purchaseId = randomUUID();
    await h.deps.db
      .insertInto('purchases')
      .values({
        id: purchaseId,
        user_id: userId,
        idempotency_key: `lost-${purchaseId}`,
        nonce_hash: 'x',
        pack_id: 'clicks100',
        amount_cents: 99,
        status: 'pending',
        attempts: 1,
      })
      .execute();
    await h.app.payments.checkout.reconcilePending({ minAgeMs: 0, giveUpAfterMs: 0 });
    const purchase = await h.deps.db
      .selectFrom('purchases')
      .selectAll()
      .where('id', '=', purchaseId)
      .executeTakeFirstOrThrow();
    expect(purchase.status).toBe('failed');
    expect(purchaseEvents(userId)).toHaveLength(0);
  });

  describe('exactly once, whatever fails at any step of a checkout', () => {
    type Injection = Parameters<Harness['emulator']['client']['fault']>[0];
    const matrix: [string, Injection[]][] = [
      ['before the request (provider down)', [{ target: 'braintree.sale', kind: 'status', status: 503 }]],
      ['lost request', [{ target: 'braintree.sale', kind: 'timeout', delayMs: 3000, afterEffect: false }]],
      ['lost answer', [{ target: 'braintree.sale', kind: 'timeout', delayMs: 3000, afterEffect: true }]],
      ['cut body after the charge', [{ target: 'braintree.sale', kind: 'cut' }]],
      [
        'lookup failure after a lost answer',
        [
          { target: 'braintree.sale', kind: 'timeout', delayMs: 3000, afterEffect: true },
          { target: 'braintree.search', kind: 'status', status: 503, times: 3 },
        ],
      ],
    ];

    it.each(matrix)('%s: charged at most once, credited exactly when charged', async (_point, injections) => {
      for (const injection of injections) await h.emulator.client.fault(injection);
      const key = `matrix-${randomUUID()}`;
      const body = { paymentMethodNonce: 'fake-valid-nonce', amount: '1.99', idempotencyKey: key };
      let answer = await checkout(body);
      // The buyer retries with the same key (and the reconciler runs) until the answer is definite.
      for (let i = 0; i < 6 && !(answer.statusCode === 200 && answer.json().success === true); i++) {
        expect([200, 409, 502]).toContain(answer.statusCode);
        await h.app.payments.checkout.reconcilePending({ minAgeMs: 0 });
        answer = await checkout(body);
      }
      expect(answer.json()).toMatchObject({ success: true });
      // The buyer's replay after success is the same answer (the duplicate), never a second charge.
      expect((await checkout(body)).json()).toEqual(answer.json());
      const purchase = await h.deps.db
        .selectFrom('purchases')
        .selectAll()
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      expect(purchase.status).toBe('succeeded');
      expect(await h.emulator.client.charges(purchase.id)).toHaveLength(1);
      await eventually(() => purchaseEvents(userId).length === 1, 'one purchase event');
      await new Promise((r) => setTimeout(r, 200));
      expect(purchaseEvents(userId)).toHaveLength(1);
    });
  });
});
