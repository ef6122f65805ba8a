// The Braintree side of the emulator, driven by the real `braintree` SDK as the payments service drives it.
import braintree from 'braintree';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NO_MONEY_HEADER, startEmulator, type RunningEmulator } from '../src/index.js';

function gatewayFor(emulator: RunningEmulator, timeout?: number) {
  const environment = new braintree.Environment(
    '127.0.0.1',
    String(emulator.port),
    'http://127.0.0.1',
    false,
    '127.0.0.1',
    String(emulator.port),
  );
  const gateway = new braintree.BraintreeGateway({
    environment,
    merchantId: 'merchant',
    publicKey: 'public-key',
    privateKey: 'private-key',
  });
  if (timeout) (gateway as unknown as { config: { timeout: number } }).config.timeout = timeout;
  return gateway;
}

function searchByOrderId(
  gateway: braintree.BraintreeGateway,
  orderId: string,
): Promise<braintree.Transaction[]> {
  return new Promise((resolve, reject) => {
    const found: braintree.Transaction[] = [];
    const stream = gateway.transaction.search((search) =>
      search.orderId().is(orderId),
    ) as unknown as NodeJS.ReadableStream;
    stream.on('data', (t: braintree.Transaction) => found.push(t));
    stream.on('end', () => resolve(found));
    stream.on('error', reject);
  });
}

describe('Braintree gateway emulator', () => {
  let emulator: RunningEmulator;
  let gateway: braintree.BraintreeGateway;

  beforeAll(async () => {
    emulator = await startEmulator();
    gateway = gatewayFor(emulator);
  });
  afterAll(async () => emulator?.stop());
  beforeEach(async () => {
    await emulator.client.reset();
  });

  it('generates a client token that says it comes from the emulator', async () => {
    const response = await gateway.clientToken.generate({});
    expect(response.success).toBe(true);
    const token = JSON.parse(Buffer.from(response.clientToken, 'base64').toString('utf8'));
    expect(token).toMatchObject({ environment: 'emulator', merchantId: 'merchant' });
  });

  it('charges a valid test nonce once, submitted for settlement, and finds it by id and by order id', async () => {
    const result = await gateway.transaction.sale({
      amount: '4.99',
      paymentMethodNonce: 'fake-valid-nonce',
      orderId: 'order-1',
      options: { submitForSettlement: true },
    });
    expect(result.success).toBe(true);
    expect(result.transaction).toMatchObject({
      status: 'submitted_for_settlement',
      amount: '4.99',
      orderId: 'order-1',
      paymentInstrumentType: 'credit_card',
    });
    const found = await gateway.transaction.find(result.transaction.id);
    expect(found.id).toBe(result.transaction.id);
    expect((await searchByOrderId(gateway, 'order-1')).map((t) => t.id)).toEqual([result.transaction.id]);
    expect(await searchByOrderId(gateway, 'order-unknown')).toEqual([]);
    expect(await emulator.client.charges()).toHaveLength(1);
  });

  it('accepts the PayPal test nonces as PayPal payments', async () => {
    for (const nonce of ['fake-paypal-one-time-nonce', 'fake-paypal-billing-agreement-nonce']) {
      const result = await gateway.transaction.sale({
        amount: '0.99',
        paymentMethodNonce: nonce,
        options: { submitForSettlement: true },
      });
      expect(result.success).toBe(true);
      expect(result.transaction.paymentInstrumentType).toBe('paypal_account');
    }
  });

  it('declines the processor-declined nonce and the documented decline amounts, charging nothing', async () => {
    const byNonce = await gateway.transaction.sale({
      amount: '1.99',
      paymentMethodNonce: 'fake-processor-declined-visa-nonce',
      options: { submitForSettlement: true },
    });
    expect(byNonce.success).toBe(false);
    expect(byNonce.transaction).toMatchObject({
      status: 'processor_declined',
      processorResponseCode: '2000',
      processorResponseText: 'Do Not Honor',
    });
    const byAmount = await gateway.transaction.sale({
      amount: '2001.00',
      paymentMethodNonce: 'fake-valid-nonce',
      options: { submitForSettlement: true },
    });
    expect(byAmount.success).toBe(false);
    expect(byAmount.transaction).toMatchObject({
      status: 'processor_declined',
      processorResponseCode: '2001',
      processorResponseText: 'Insufficient Funds',
    });
    const rejected = await gateway.transaction.sale({
      amount: '5001.00',
      paymentMethodNonce: 'fake-valid-nonce',
    });
    expect(rejected.transaction).toMatchObject({
      status: 'gateway_rejected',
      gatewayRejectionReason: 'application_incomplete',
    });
    expect(await emulator.client.charges()).toHaveLength(0);
  });

  it('answers validation errors for unknown and consumed nonces and a bad amount', async () => {
    const unknown = await gateway.transaction.sale({ amount: '0.99', paymentMethodNonce: 'not-a-nonce' });
    expect(unknown.success).toBe(false);
    expect(unknown.errors.deepErrors().map((e) => e.code)).toEqual(['91565']);
    const consumed = await gateway.transaction.sale({
      amount: '0.99',
      paymentMethodNonce: 'fake-consumed-nonce',
    });
    expect(consumed.message).toMatch(/more than once/);
    const badAmount = await gateway.transaction.sale({
      amount: 'abc',
      paymentMethodNonce: 'fake-valid-nonce',
    });
    expect(badAmount.errors.deepErrors().map((e) => e.attribute)).toEqual(['amount']);
  });

  it('injects a 503 that the SDK reports as unavailable, with nothing charged', async () => {
    await emulator.client.fault({ target: 'braintree.sale', kind: 'status', status: 503 });
    await expect(
      gateway.transaction.sale({ amount: '0.99', paymentMethodNonce: 'fake-valid-nonce' }),
    ).rejects.toMatchObject({ type: 'serviceUnavailableError' });
    expect(await emulator.client.charges()).toHaveLength(0);
  });

  it('injects a timeout after charging: the caller gives up, the charge is there to be found by order id', async () => {
    await emulator.client.fault({
      target: 'braintree.sale',
      kind: 'timeout',
      delayMs: 1500,
      afterEffect: true,
    });
    const impatient = gatewayFor(emulator, 300);
    await expect(
      impatient.transaction.sale({
        amount: '0.99',
        paymentMethodNonce: 'fake-valid-nonce',
        orderId: 'order-t',
      }),
    ).rejects.toThrow(/timed out/i);
    expect(await searchByOrderId(gateway, 'order-t')).toHaveLength(1);
  });

  it('voids a transaction submitted for settlement', async () => {
    const sale = await gateway.transaction.sale({
      amount: '0.99',
      paymentMethodNonce: 'fake-valid-nonce',
      options: { submitForSettlement: true },
    });
    const voided = await gateway.transaction.void(sale.transaction.id);
    expect(voided.transaction.status).toBe('voided');
    expect(await emulator.client.charges()).toHaveLength(0);
  });

  it('refunds a settled sale once, as a credit that is no charge; a second refund is refused', async () => {
    const sale = await gateway.transaction.sale({
      amount: '4.99',
      paymentMethodNonce: 'fake-valid-nonce',
      orderId: 'order-r',
      options: { submitForSettlement: true },
    });
    const early = await gateway.transaction.refund(sale.transaction.id);
    expect(early.success).toBe(false);
    expect(early.message).toMatch(/unless it is settled/);
    await emulator.client.settle(sale.transaction.id);

    const refund = await gateway.transaction.refund(sale.transaction.id);
    expect(refund.success).toBe(true);
    expect(refund.transaction).toMatchObject({
      type: 'credit',
      amount: '4.99',
      refundedTransactionId: sale.transaction.id,
    });
    const original = await gateway.transaction.find(sale.transaction.id);
    expect(original.refundIds).toEqual([refund.transaction.id]);
    // The credit gave the money back: it is no charge of its own, and the sale shows it refunded.
    expect((await emulator.client.charges()).map((t) => t.id)).toEqual([sale.transaction.id]);
    expect(await emulator.client.transactions('order-r')).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: sale.transaction.id, refundedCents: 499 })]),
    );

    const again = await gateway.transaction.refund(sale.transaction.id);
    expect(again.success).toBe(false);
    expect(again.message).toMatch(/already been completely refunded/);
    expect((await gateway.transaction.find(sale.transaction.id)).refundIds).toHaveLength(1);
    // A void of a settled sale is refused: only a refund gives it back.
    const voided = await gateway.transaction.void(sale.transaction.id);
    expect(voided.success).toBe(false);
  });

  it('refunds part of a settled sale when asked an amount (as the console does), up to what is left', async () => {
    const sale = await gateway.transaction.sale({
      amount: '4.99',
      paymentMethodNonce: 'fake-valid-nonce',
      orderId: 'order-partial',
      options: { submitForSettlement: true },
    });
    await emulator.client.settle(sale.transaction.id);
    const part = await gateway.transaction.refund(sale.transaction.id, '1.50');
    expect(part.success).toBe(true);
    expect(part.transaction).toMatchObject({ type: 'credit', amount: '1.50' });
    expect((await gateway.transaction.find(part.transaction.id)).amount).toBe('1.50');
    const tooMuch = await gateway.transaction.refund(sale.transaction.id, '4.00');
    expect(tooMuch.success).toBe(false);
    expect(tooMuch.message).toMatch(/too large/);
    // Without an amount, what is left.
    const rest = await gateway.transaction.refund(sale.transaction.id);
    expect(rest.transaction.amount).toBe('3.49');
    expect(await emulator.client.transactions('order-partial')).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: sale.transaction.id, refundedCents: 499 })]),
    );
  });

  it('a void or a refund whose answer is lost has happened: the sale says so when found', async () => {
    const first = await gateway.transaction.sale({
      amount: '0.99',
      paymentMethodNonce: 'fake-valid-nonce',
      options: { submitForSettlement: true },
    });
    const second = await gateway.transaction.sale({
      amount: '0.99',
      paymentMethodNonce: 'fake-valid-nonce',
      options: { submitForSettlement: true },
    });
    await emulator.client.settle(second.transaction.id);
    const impatient = gatewayFor(emulator, 300);
    await emulator.client.fault({
      target: 'braintree.void',
      kind: 'timeout',
      delayMs: 1000,
      afterEffect: true,
    });
    await expect(impatient.transaction.void(first.transaction.id)).rejects.toThrow(/timed out/i);
    await emulator.client.fault({
      target: 'braintree.refund',
      kind: 'timeout',
      delayMs: 1000,
      afterEffect: true,
    });
    await expect(impatient.transaction.refund(second.transaction.id)).rejects.toThrow(/timed out/i);
    expect((await gateway.transaction.find(first.transaction.id)).status).toBe('voided');
    expect((await gateway.transaction.find(second.transaction.id)).refundIds).toHaveLength(1);

    // A refused call changes nothing.
    const third = await gateway.transaction.sale({
      amount: '0.99',
      paymentMethodNonce: 'fake-valid-nonce',
      options: { submitForSettlement: true },
    });
    await emulator.client.fault({ target: 'braintree.void', kind: 'status', status: 503 });
    await expect(gateway.transaction.void(third.transaction.id)).rejects.toThrow();
    expect((await gateway.transaction.find(third.transaction.id)).status).toBe('submitted_for_settlement');
  });

  it('signs webhooks that the SDK verifies, and whose tampering it detects', async () => {
    const sale = await gateway.transaction.sale({
      amount: '0.99',
      paymentMethodNonce: 'fake-valid-nonce',
      orderId: 'order-w',
      options: { submitForSettlement: true },
    });
    const settled = await emulator.client.webhook('transaction_settled', sale.transaction.id);
    const notification = (await gateway.webhookNotification.parse(
      settled.bt_signature,
      settled.bt_payload,
    )) as braintree.TransactionNotification;
    expect(notification.kind).toBe('transaction_settled');
    expect(notification.transaction).toMatchObject({
      id: sale.transaction.id,
      status: 'settled',
      orderId: 'order-w',
    });
    const dispute = await emulator.client.webhook('dispute_opened', sale.transaction.id);
    const opened = (await gateway.webhookNotification.parse(
      dispute.bt_signature,
      dispute.bt_payload,
    )) as braintree.DisputeNotification;
    expect(opened.dispute).toMatchObject({ status: 'open', amount: '0.99' });
    const tampered = dispute.bt_signature.replace(/\|.{4}/, '|0000');
    await expect(gateway.webhookNotification.parse(tampered, dispute.bt_payload)).rejects.toThrow(
      /signature/,
    );
  });

  it("settles as Braintree's batch does: a declined settlement is neither voided nor refunded; the batch settles the rest", async () => {
    const sale = (orderId: string) =>
      gateway.transaction.sale({
        amount: '0.99',
        paymentMethodNonce: 'fake-valid-nonce',
        orderId,
        options: { submitForSettlement: true },
      });
    const declined = (await sale('order-sd')).transaction.id;
    const waiting = (await sale('order-sb')).transaction.id;
    expect(await emulator.client.settle(declined, 'settlement_declined')).toMatchObject({
      status: 'settlement_declined',
    });
    expect((await gateway.transaction.find(declined)).status).toBe('settlement_declined');
    expect((await gateway.transaction.void(declined)).success).toBe(false);
    expect((await gateway.transaction.refund(declined)).success).toBe(false);
    expect((await emulator.client.settlementBatch()).settled).toEqual([waiting]);
    expect((await gateway.transaction.find(waiting)).status).toBe('settled');
    // The webhook of a declined settlement follows the decline, as Braintree's does.
    const third = (await sale('order-sw')).transaction.id;
    await emulator.client.webhook('transaction_settlement_declined', third);
    expect((await gateway.transaction.find(third)).status).toBe('settlement_declined');
  });

  it('settles each sale on its own SETTLE_AFTER_MS after it was made, when asked to', async () => {
    const timed = await startEmulator({ settleAfterMs: 50 });
    try {
      const own = gatewayFor(timed);
      const sale = await own.transaction.sale({
        amount: '0.99',
        paymentMethodNonce: 'fake-valid-nonce',
        orderId: 'order-timed',
        options: { submitForSettlement: true },
      });
      // The batch runs every SETTLE_AFTER_MS (at most a second): waited for, never timed.
      let status = sale.transaction.status;
      while (status !== 'settled') {
        await new Promise((resolve) => setTimeout(resolve, 50));
        status = (await own.transaction.find(sale.transaction.id)).status;
      }
      expect(status).toBe('settled');
    } finally {
      await timed.stop();
    }
  });

  it('rejects calls without credentials and says on every answer that no money moves', async () => {
    const response = await fetch(`${emulator.url}/merchants/merchant/client_token`, { method: 'POST' });
    expect(response.status).toBe(401);
    expect(response.headers.get(NO_MONEY_HEADER)).toMatch(/no real money moves/);
    const health = await fetch(`${emulator.url}/readyz`);
    expect(health.status).toBe(200);
    expect(health.headers.get(NO_MONEY_HEADER)).toMatch(/no real money moves/);
  });
});
