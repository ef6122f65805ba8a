// Braintree webhooks as Braintree posts them (form-encoded, signed with our keys), from the emulator.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newUserId, startHarness, type Harness } from './harness.js';

describe('Braintree webhooks', () => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await startHarness();
    token = await h.token({ sub: newUserId() });
  });
  afterAll(async () => h?.close());
  afterEach(async () => h.assertLedgerBalances());

  const deliver = (notification: { bt_signature: string; bt_payload: string }) =>
    h.app.inject({
      method: 'POST',
      url: '/api/payments/webhooks/braintree',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(notification).toString(),
    });

  async function purchase(): Promise<string> {
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/payments/checkout',
      headers: { authorization: `Bearer ${token}` },
      payload: {
        paymentMethodNonce: 'fake-valid-nonce',
        amount: '1.99',
        idempotencyKey: `wh-${randomUUID()}`,
      },
    });
    return response.json().transactionId;
  }

  const purchaseOf = (transactionId: string) =>
    h.deps.db
      .selectFrom('purchases')
      .selectAll()
      .where('provider_transaction_id', '=', transactionId)
      .executeTakeFirstOrThrow();

  it('records a settlement once, however often it is delivered', async () => {
    const transactionId = await purchase();
    const notification = await h.emulator.client.webhook('transaction_settled', transactionId);
    const first = await deliver(notification);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ received: true, kind: 'transaction_settled', duplicate: false });
    expect((await deliver(notification)).json()).toMatchObject({ duplicate: true });
    expect((await purchaseOf(transactionId)).settlement_status).toBe('settled');
  });

  it('records a dispute on its purchase, moving no money', async () => {
    const transactionId = await purchase();
    const response = await deliver(await h.emulator.client.webhook('dispute_opened', transactionId));
    expect(response.statusCode).toBe(200);
    expect((await purchaseOf(transactionId)).dispute_status).toBe('open');
  });

  it('refuses a notification whose signature does not verify, or that lacks a field', async () => {
    const transactionId = await purchase();
    const notification = await h.emulator.client.webhook('dispute_lost', transactionId);
    const forged = await deliver({
      ...notification,
      bt_signature: `${notification.bt_signature.split('|')[0]}|${'0'.repeat(40)}`,
    });
    expect(forged.statusCode).toBe(400);
    expect(forged.json()).toMatchObject({
      field: 'bt_signature',
      error: expect.stringMatching(/does not verify/),
    });
    const missing = await deliver({ bt_signature: notification.bt_signature, bt_payload: '' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().field).toBe('bt_payload');
    expect((await purchaseOf(transactionId)).dispute_status).toBeNull();
  });
});
