// The PayPal side of the emulator: OAuth client credentials, Payouts with sender_batch_id idempotency,
// and the injected faults the payments service's tests rely on.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NO_MONEY_HEADER, startEmulator, type RunningEmulator } from '../src/index.js';

describe('PayPal emulator', () => {
  let emulator: RunningEmulator;

  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterAll(async () => emulator?.stop());
  beforeEach(async () => {
    await emulator.client.reset();
  });

  async function token(): Promise<string> {
    const response = await fetch(`${emulator.url}/v1/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from('client:secret').toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { access_token: string }).access_token;
  }

  function payout(accessToken: string, senderBatchId: string, value = '12.50') {
    return fetch(`${emulator.url}/v1/payments/payouts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        sender_batch_header: { sender_batch_id: senderBatchId, email_subject: 'You won' },
        items: [
          {
            recipient_type: 'EMAIL',
            amount: { value, currency: 'EUR' },
            receiver: 'winner@example.com',
            sender_item_id: senderBatchId,
          },
        ],
      }),
    });
  }

  it('issues a bearer token for client credentials and refuses bad credentials', async () => {
    expect(await token()).toMatch(/^A21AA/);
    const bad = await fetch(`${emulator.url}/v1/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(bad.status).toBe(401);
    expect(bad.headers.get(NO_MONEY_HEADER)).toMatch(/no real money moves/);
  });

  it('pays a batch once, and answers a reused sender_batch_id with the duplicate error linking the original', async () => {
    const accessToken = await token();
    const first = await payout(accessToken, 'batch-1');
    expect(first.status).toBe(201);
    const created = (await first.json()) as { batch_header: { payout_batch_id: string } };
    const again = await payout(accessToken, 'batch-1');
    expect(again.status).toBe(400);
    const duplicate = (await again.json()) as { name: string; links: { href: string }[] };
    expect(duplicate.name).toBe('USER_BUSINESS_ERROR');
    expect(duplicate.links[0]!.href).toContain(created.batch_header.payout_batch_id);
    const batch = await fetch(duplicate.links[0]!.href, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(
      ((await batch.json()) as { items: { transaction_id: string }[] }).items[0]!.transaction_id,
    ).toBeTruthy();
    expect(await emulator.client.payouts()).toHaveLength(1);
  });

  it('refuses payouts without a valid token or with a bad amount', async () => {
    expect((await payout('nope', 'batch-2')).status).toBe(401);
    expect((await payout(await token(), 'batch-3', '0.00')).status).toBe(400);
    expect(await emulator.client.payouts()).toHaveLength(0);
  });

  it('injects 503s that pay nothing, then pays', async () => {
    await emulator.client.fault({ target: 'paypal.payouts', kind: 'status', status: 503, times: 2 });
    const accessToken = await token();
    expect((await payout(accessToken, 'batch-4')).status).toBe(503);
    expect((await payout(accessToken, 'batch-4')).status).toBe(503);
    expect(await emulator.client.payouts()).toHaveLength(0);
    expect((await payout(accessToken, 'batch-4')).status).toBe(201);
    expect(await emulator.client.payouts()).toHaveLength(1);
  });

  it('injects a duplicate: the batch exists as if an earlier call had landed', async () => {
    await emulator.client.fault({ target: 'paypal.payouts', kind: 'duplicate' });
    const response = await payout(await token(), 'batch-5');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { details: { field: string }[] }).details[0]!.field).toBe(
      'SENDER_BATCH_ID',
    );
    expect((await emulator.client.payouts()).map((p) => p.senderBatchId)).toEqual(['batch-5']);
  });

  it('injects a timeout without effect: the connection drops and nothing is paid', async () => {
    await emulator.client.fault({
      target: 'paypal.payouts',
      kind: 'timeout',
      delayMs: 50,
      afterEffect: false,
    });
    await expect(payout(await token(), 'batch-6')).rejects.toThrow();
    expect(await emulator.client.payouts()).toHaveLength(0);
  });

  it('injects an error name, with or without the payout made, as PayPal spells its errors', async () => {
    await emulator.client.fault({
      target: 'paypal.payouts',
      kind: 'status',
      status: 422,
      name: 'INSUFFICIENT_FUNDS',
    });
    await emulator.client.fault({ target: 'paypal.payouts', kind: 'status', status: 409, afterEffect: true });
    const accessToken = await token();
    const refused = await payout(accessToken, 'batch-7');
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { name: string }).name).toBe('INSUFFICIENT_FUNDS');
    expect(await emulator.client.payouts()).toHaveLength(0);
    const madeYetError = await payout(accessToken, 'batch-7');
    expect(madeYetError.status).toBe(409);
    expect((await emulator.client.payouts()).map((p) => p.senderBatchId)).toEqual(['batch-7']);
    await expect(
      emulator.client.fault({ target: 'paypal.payouts', kind: 'status', status: 400, name: 'bad name' }),
    ).rejects.toThrow(/name must be an error name/);
  });

  it("shows a batch's item status, which a test sets by either batch id", async () => {
    const accessToken = await token();
    const created = (await (await payout(accessToken, 'batch-8')).json()) as {
      batch_header: { payout_batch_id: string };
    };
    const batchId = created.batch_header.payout_batch_id;
    const show = async () =>
      (await (
        await fetch(`${emulator.url}/v1/payments/payouts/${batchId}`, {
          headers: { authorization: `Bearer ${accessToken}` },
        })
      ).json()) as { items: { transaction_status: string; errors?: { name: string } }[] };
    expect((await show()).items[0]!.transaction_status).toBe('SUCCESS');
    await emulator.client.setPayoutStatus('batch-8', 'UNCLAIMED');
    expect((await show()).items[0]).toMatchObject({
      transaction_status: 'UNCLAIMED',
      errors: { name: 'RECEIVER_UNREGISTERED' },
    });
    await emulator.client.setPayoutStatus(batchId, 'RETURNED');
    expect((await show()).items[0]!.transaction_status).toBe('RETURNED');
    expect((await emulator.client.payouts())[0]!.transactionStatus).toBe('RETURNED');
    await expect(emulator.client.setPayoutStatus(batchId, 'LOST')).rejects.toThrow(/status must be one of/);
    await expect(emulator.client.setPayoutStatus('nope', 'FAILED')).rejects.toThrow(/404/);
  });

  it('refuses an unknown fault with a clear message', async () => {
    await expect(
      emulator.client.fault({ target: 'paypal.nothing' as never, kind: 'status' }),
    ).rejects.toThrow(/target must be one of/);
  });
});
