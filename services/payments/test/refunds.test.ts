// Refunding a purchase (admin): a void when the charge is not settled, a refund when it is, through the
// real SDK against the emulator; once, however often and however concurrently it is asked; the game
// takes back the clicks and the pot share; the ledger stays balanced (checked after every test) with
// the pot share from the pot while the round is in play, else from the house, and what neither holds as
// the operator's loss; the audit log hears of it. And the player's purchases and payouts, for the admin.
import { AdminPayoutsPage, AdminPurchasesPage, ErrorBody, RefundResponse, SUBJECTS } from '@omc/contracts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import braintree from 'braintree';
import { moneyAuditOf } from '../src/audit/money-audit.repo.js';
import { checkLedger } from '../src/ledger/check.js';
import type { RefundStep } from '../src/refunds/refunds.service.js';
import { newUserId, payHouse, startHarness, type Harness } from './harness.js';

describe('refunds', () => {
  let h: Harness;
  let adminId: string;
  let admin: string;

  beforeAll(async () => {
    h = await startHarness();
    adminId = newUserId();
    admin = await h.token({ sub: adminId, username: 'operator', role: 'admin' });
  });
  afterAll(async () => h?.close());
  beforeEach(async () => {
    await h.emulator.client.reset();
    h.auth.audited.length = 0;
    h.game.takeBackCalls.length = 0;
  });
  afterEach(async () => h.assertLedgerBalances());

  const call = (method: 'GET' | 'POST', url: string, token: string, payload?: Record<string, unknown>) =>
    h.app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload ? { payload } : {}),
    });
  const refund = (purchaseId: string, token = admin, reason = 'Charged twice by mistake') =>
    call('POST', `/api/admin/purchases/${purchaseId}/refund`, token, { reason });

  /** A player buys a pack; the purchase's id and Braintree transaction id. */
  async function buy(amount = '0.99', buyerId = newUserId()) {
    const buyer = await h.token({ sub: buyerId });
    const response = await call('POST', '/api/payments/checkout', buyer, {
      paymentMethodNonce: 'fake-valid-nonce',
      amount,
    });
    expect(response.json().success).toBe(true);
    const transactionId = response.json().transactionId as string;
    const row = await h.deps.db
      .selectFrom('purchases')
      .select('id')
      .where('provider_transaction_id', '=', transactionId)
      .executeTakeFirstOrThrow();
    return { purchaseId: row.id, transactionId, buyerId };
  }

  const balances = async () => (await checkLedger(h.deps.db)).balances;
  const oldestUnfinishedRefund = async () =>
    Number(
      /^payments_refunds_unfinished_oldest_age_seconds(?:{[^}]*})? (\S+)$/m.exec(
        (await h.app.inject('/metrics')).body,
      )?.[1],
    );
  const auditRows = (purchaseId: string) => moneyAuditOf(h.deps.db, 'purchase.refunded', purchaseId);
  /** Braintree's console, as the operator uses it: the same API, not through payments. */
  const consoleGateway = () => {
    const url = new URL(h.emulator.url);
    return new braintree.BraintreeGateway({
      environment: new braintree.Environment(
        url.hostname,
        url.port,
        url.origin,
        false,
        url.hostname,
        url.port,
      ),
      merchantId: h.deps.config.BRAINTREE_MERCHANT_ID ?? 'merchant',
      publicKey: h.deps.config.BRAINTREE_PUBLIC_KEY ?? 'public-key',
      privateKey: h.deps.config.BRAINTREE_PRIVATE_KEY ?? 'private-key',
    });
  };

  it('answers 403 to a player, and 4xx naming the problem to bad input', async () => {
    const { purchaseId } = await buy();
    const player = await h.token({ sub: newUserId() });
    const refused = await refund(purchaseId, player);
    expect(refused.statusCode).toBe(403);
    expect(ErrorBody.parse(refused.json()).message).toMatch(/admin/i);

    const missing = await call('POST', `/api/admin/purchases/${purchaseId}/refund`, admin, {});
    expect(missing.statusCode).toBe(400);
    expect(ErrorBody.parse(missing.json()).message).toMatch(/reason/);
    const long = await refund(purchaseId, admin, 'x'.repeat(501));
    expect(long.statusCode).toBe(400);
    expect(ErrorBody.parse(long.json()).message).toMatch(/reason must be at most 500/);
    const badId = await refund('not-a-purchase');
    expect(badId.statusCode).toBe(400);
    expect(ErrorBody.parse(badId.json()).message).toMatch(/id must be a purchase id/);
    const unknown = await refund(newUserId());
    expect(unknown.statusCode).toBe(404);
    expect(ErrorBody.parse(unknown.json()).message).toMatch(/No purchase/);

    const declined = await call('POST', '/api/payments/checkout', player, {
      paymentMethodNonce: 'fake-processor-declined-visa-nonce',
      amount: '0.99',
    });
    expect(declined.json().success).toBe(false);
    const declinedRow = await h.deps.db
      .selectFrom('purchases')
      .select('id')
      .where('status', '=', 'declined')
      .executeTakeFirstOrThrow();
    const notCharged = await refund(declinedRow.id);
    expect(notCharged.statusCode).toBe(409);
    expect(ErrorBody.parse(notCharged.json()).message).toMatch(/declined/);
    // Nothing reached the provider or the game.
    expect(h.game.takeBackCalls).toEqual([]);
    expect((await h.emulator.client.transactions()).filter((t) => t.type === 'credit')).toEqual([]);
  });

  it('voids a purchase not settled yet: the pot share leaves the pot, the rest the house; audited', async () => {
    const before = await balances();
    const { purchaseId, transactionId, buyerId } = await buy('1.99');
    const answer = await refund(purchaseId);
    expect(answer.statusCode).toBe(200);
    const { refund: done } = RefundResponse.parse(answer.json());
    expect(done).toMatchObject({
      purchaseId,
      status: 'completed',
      kind: 'void',
      providerRefundId: transactionId,
      amount: 1.99,
      clicksTakenBack: 500,
      potTakenBack: 0.99,
      houseTakenBack: 1,
      operatorLoss: 0,
    });
    expect((await h.emulator.client.transactions())[0]).toMatchObject({
      id: transactionId,
      status: 'voided',
      charged: false,
    });
    // The game was asked with the admin's own token.
    expect(h.game.takeBackCalls).toEqual([{ purchaseId, authorization: `Bearer ${admin}` }]);
    const after = await balances();
    expect(after['pot:round'] ?? 0).toBe(before['pot:round'] ?? 0);
    expect(after.house ?? 0).toBe(before.house ?? 0);
    expect(after['external:braintree'] ?? 0).toBe(before['external:braintree'] ?? 0);

    expect(h.auth.audited).toEqual([
      {
        authorization: `Bearer ${admin}`,
        body: {
          action: 'purchase.refunded',
          targetId: buyerId,
          detail: expect.objectContaining({
            purchaseId,
            transactionId,
            kind: 'void',
            amount: 1.99,
            reason: 'Charged twice by mistake',
            clicksTakenBack: 500,
          }),
          ip: expect.any(String),
        },
      },
    ]);
  });

  it('refunds a settled purchase once when ten requests arrive together; later ones are 409', async () => {
    const { purchaseId, transactionId } = await buy('4.99');
    await h.emulator.client.settle(transactionId);
    const answers = await Promise.all(Array.from({ length: 10 }, () => refund(purchaseId)));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, ...Array(9).fill(409)]);
    for (const refused of answers.filter((a) => a.statusCode === 409))
      expect(ErrorBody.parse(refused.json()).message).toMatch(/already refunded|in progress/);
    const done = RefundResponse.parse(answers.find((a) => a.statusCode === 200)!.json()).refund;
    expect(done).toMatchObject({ kind: 'refund', status: 'completed', amount: 4.99 });
    expect(done.providerRefundId).not.toBe(transactionId);

    const again = await refund(purchaseId);
    expect(again.statusCode).toBe(409);
    expect(ErrorBody.parse(again.json()).message).toMatch(/already refunded/);
    const transactions = await h.emulator.client.transactions();
    expect(transactions.filter((t) => t.type === 'credit')).toHaveLength(1);
    expect(transactions.find((t) => t.id === transactionId)?.refundedCents).toBe(499);
    expect(h.game.takeBackCalls).toHaveLength(1);
    expect(h.auth.audited).toHaveLength(1);
  });

  it('a round already won: the pot share comes from the house; the house already collected: the loss is explicit', async () => {
    // Drain the house first, so what it holds is only what this test puts there.
    const housePaid = await collectHouse();
    expect(housePaid).toBeGreaterThanOrEqual(0);
    const before = await balances();
    const { purchaseId } = await buy('4.99');
    h.game.takeBacks.set(purchaseId, { round: 1, roundInPlay: false, clicks: 0, pass: false, potCents: 0 });
    const answer = await refund(purchaseId);
    expect(answer.statusCode).toBe(200);
    // The house held its share (250) only: the pot share of the won round (249) is the operator's loss.
    expect(RefundResponse.parse(answer.json()).refund).toMatchObject({
      clicksTakenBack: 0,
      potTakenBack: 0,
      houseTakenBack: 2.5,
      operatorLoss: 2.49,
    });
    const after = await balances();
    expect(after.house ?? 0).toBe(before.house ?? 0);
    // The won round's share stays where the game's win put it (here still the ledger's pot).
    expect(after['pot:round']! - (before['pot:round'] ?? 0)).toBe(249);
    expect(after['external:refund-losses']).toBe((before['external:refund-losses'] ?? 0) - 249);

    // With the house holding enough, it absorbs a won round's pot share whole.
    const first = await buy('4.99');
    const second = await buy('4.99');
    h.game.takeBacks.set(second.purchaseId, {
      round: 1,
      roundInPlay: false,
      clicks: 0,
      pass: false,
      potCents: 0,
    });
    expect(first.purchaseId).not.toBe(second.purchaseId);
    const absorbed = RefundResponse.parse((await refund(second.purchaseId)).json()).refund;
    expect(absorbed).toMatchObject({ potTakenBack: 0, houseTakenBack: 4.99, operatorLoss: 0 });
  });

  it('Braintree unavailable: 502, nothing moved; the retry refunds once', async () => {
    const { purchaseId, transactionId } = await buy('0.99');
    await h.emulator.client.settle(transactionId);
    const before = await balances();
    await h.emulator.client.fault({ target: 'braintree.refund', kind: 'status', status: 503 });
    const down = await refund(purchaseId);
    expect(down.statusCode).toBe(502);
    expect(ErrorBody.parse(down.json()).message).toMatch(/Braintree.*Nothing was refunded/);
    expect(await balances()).toEqual(before);
    expect(h.game.takeBackCalls).toEqual([]);

    const retried = await refund(purchaseId);
    expect(retried.statusCode).toBe(200);
    expect(RefundResponse.parse(retried.json()).refund.status).toBe('completed');
    expect((await h.emulator.client.transactions()).filter((t) => t.type === 'credit')).toHaveLength(1);
  });

  it('a refund whose answer Braintree lost is found on the sale and not made twice', async () => {
    const { purchaseId, transactionId } = await buy('0.99');
    await h.emulator.client.settle(transactionId);
    await h.emulator.client.fault({
      target: 'braintree.refund',
      kind: 'timeout',
      delayMs: 2000,
      afterEffect: true,
    });
    const lost = await refund(purchaseId);
    expect(lost.statusCode).toBe(200);
    expect(RefundResponse.parse(lost.json()).refund).toMatchObject({ status: 'completed', kind: 'refund' });
    expect((await refund(purchaseId)).statusCode).toBe(409);
    const credits = (await h.emulator.client.transactions()).filter((t) => t.type === 'credit');
    expect(credits).toHaveLength(1);
  });

  it('the game unavailable once the money went back: 503, "refund in progress"; payments finishes it by itself, once', async () => {
    const { purchaseId, transactionId, buyerId } = await buy('0.99');
    h.game.takeBackDown = true;
    try {
      const waiting = await refund(purchaseId);
      expect(waiting.statusCode).toBe(503);
      expect(ErrorBody.parse(waiting.json()).message).toMatch(/went back to the buyer.*by itself/);
      expect((await listPurchases(buyerId)).purchases[0]).toMatchObject({
        status: 'refund_in_progress',
        refund: { status: 'returned' },
      });
      // While the game is away, the background pass leaves it as it is; the operator's gauge shows it.
      await h.app.payments.finishMoney();
      expect((await listPurchases(buyerId)).purchases[0]!.status).toBe('refund_in_progress');
      expect(await oldestUnfinishedRefund()).toBeGreaterThan(0);
    } finally {
      h.game.takeBackDown = false;
    }
    expect((await h.emulator.client.transactions())[0]).toMatchObject({
      id: transactionId,
      status: 'voided',
    });

    // The game answers again: the next pass (at start and every RECONCILE_INTERVAL_MS) finishes it, with
    // no admin's token (the game asks payments whether the refund's money went back).
    h.game.takeBackCalls.length = 0;
    await h.app.payments.finishMoney();
    expect(h.game.takeBackCalls).toEqual([{ purchaseId, authorization: undefined }]);
    expect((await listPurchases(buyerId)).purchases[0]).toMatchObject({
      status: 'voided',
      refund: { status: 'completed', clicksTakenBack: 100 },
    });
    expect(await auditRows(purchaseId)).toHaveLength(1);
    expect(await oldestUnfinishedRefund()).toBe(0);
    const again = await refund(purchaseId);
    expect(again.statusCode).toBe(409);
    expect(ErrorBody.parse(again.json()).message).toMatch(/already refunded/);
  });

  it('a disputed or charged-back purchase is not refunded again: 409 naming the dispute', async () => {
    const { purchaseId, transactionId } = await buy('0.99');
    await h.emulator.client.settle(transactionId);
    // A lost dispute clears through the clawback (test/clawbacks.test.ts), never a refund on top of it.
    for (const [kind, message] of [
      ['dispute_opened', /disputed.*bank.*twice/],
      ['dispute_lost', /took this purchase's money back.*twice/],
    ] as const) {
      const notification = await h.emulator.client.webhook(kind, transactionId);
      const delivered = await h.app.inject({
        method: 'POST',
        url: '/api/payments/webhooks/braintree',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(notification).toString(),
      });
      expect(delivered.statusCode).toBe(200);
      const refused = await refund(purchaseId);
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({ code: 'PURCHASE_DISPUTED' });
      expect(ErrorBody.parse(refused.json()).message).toMatch(message);
    }
    expect((await h.emulator.client.transactions()).filter((t) => t.type === 'credit')).toEqual([]);
    expect(h.game.takeBackCalls).toEqual([{ purchaseId, authorization: undefined }]);
  });

  it("a partial refund made at Braintree's console is recorded as its amount, and the ledger says so", async () => {
    const { purchaseId, transactionId } = await buy('4.99');
    await h.emulator.client.settle(transactionId);
    const before = await balances();
    // The operator gave back 1.50 at Braintree's console; then the admin refunds the purchase here.
    const console = consoleGateway();
    expect((await console.transaction.refund(transactionId, '1.50')).success).toBe(true);
    const answer = await refund(purchaseId);
    expect(answer.statusCode).toBe(200);
    const { refund: done } = RefundResponse.parse(answer.json());
    // The game took back the pot share (249); the buyer got 1.50 back: the house keeps the other 0.99.
    expect(done).toMatchObject({ status: 'completed', kind: 'refund', amount: 1.5, potTakenBack: 2.49 });
    expect(done.houseTakenBack).toBeCloseTo(-0.99);
    expect((await h.emulator.client.transactions()).filter((t) => t.type === 'credit')).toHaveLength(1);
    const after = await balances();
    expect(after['external:braintree']! - before['external:braintree']!).toBe(150);
    expect((await auditRows(purchaseId))[0]!.detail).toMatchObject({ amount: 1.5 });
  });

  describe('the crash matrix: a refund stopped at any step is finished once, by the background pass', () => {
    class Crash extends Error {}
    const ROWS: {
      step: string;
      crashAt?: RefundStep;
      takeBackAnswerLost?: boolean;
      providerAnswerLost?: boolean;
    }[] = [
      { step: 'a crash before the provider call', crashAt: 'claimed' },
      { step: "Braintree's answer lost", providerAnswerLost: true },
      { step: 'a crash after the provider call, before it is recorded', crashAt: 'provider-called' },
      { step: 'a crash after markReturned', crashAt: 'returned' },
      { step: "the take-back made, the game's answer lost", takeBackAnswerLost: true },
      { step: 'a crash after complete()', crashAt: 'completed' },
    ];
    afterEach(() => {
      h.app.payments.refunds.onStep = () => undefined;
      h.game.takeBackAnswerLost = false;
    });

    for (const row of ROWS) {
      it(`${row.step}: refunded once at Braintree, taken back once, the ledger agrees, one audit row`, async () => {
        const { purchaseId, transactionId } = await buy('0.99');
        await h.emulator.client.settle(transactionId);
        h.app.payments.refunds.onStep = (step) => {
          if (step === row.crashAt) throw new Crash(`crashed at ${step}`);
        };
        h.game.takeBackAnswerLost = row.takeBackAnswerLost ?? false;
        if (row.providerAnswerLost)
          await h.emulator.client.fault({
            target: 'braintree.refund',
            kind: 'timeout',
            delayMs: 2000,
            afterEffect: true,
          });
        await refund(purchaseId);
        h.app.payments.refunds.onStep = () => undefined;
        h.game.takeBackAnswerLost = false;
        // A crashed instance's lease runs out (its length: 3 × BRAINTREE_TIMEOUT_MS + GAME_TIMEOUT_MS + 5 s).
        await h.deps.db
          .updateTable('refunds')
          .set({ lease_until: null })
          .where('purchase_id', '=', purchaseId)
          .execute();
        await h.app.payments.finishMoney();
        await h.app.payments.finishMoney();

        const done = await h.deps.db
          .selectFrom('refunds')
          .selectAll()
          .where('purchase_id', '=', purchaseId)
          .executeTakeFirstOrThrow();
        expect(done).toMatchObject({
          status: 'completed',
          kind: 'refund',
          amount_cents: 99,
          clicks_taken: 100,
          pot_cents: 49,
        });
        const credits = (await h.emulator.client.transactions()).filter(
          (t) => t.refundedTransactionId === transactionId,
        );
        expect(credits).toHaveLength(1);
        expect(
          (await h.emulator.client.transactions()).find((t) => t.id === transactionId)?.refundedCents,
        ).toBe(99);
        // This refund's movement, once: the provider's amount back, the pot share out of the pot.
        const postings = await h.deps.db
          .selectFrom('ledger_transactions as t')
          .innerJoin('ledger_entries as e', 'e.transaction_id', 't.id')
          .select(['t.id', 'e.account_id', 'e.amount_cents'])
          .where('t.reference', '=', `refund:${purchaseId}`)
          .execute();
        expect(new Set(postings.map((p) => p.id)).size).toBe(1);
        const entry = (account: string) =>
          Number(postings.find((p) => p.account_id === account)?.amount_cents ?? 0);
        expect(entry('external:braintree')).toBe(99);
        expect(entry('pot:round')).toBe(-49);
        expect(await auditRows(purchaseId)).toHaveLength(1);
      });
    }
  });

  it("lists a player's purchases and payouts with their provider ids, paged, for admins only", async () => {
    const buyerId = newUserId();
    const one = await buy('0.99', buyerId);
    const two = await buy('1.99', buyerId);
    expect((await refund(two.purchaseId)).statusCode).toBe(200);

    const player = await h.token({ sub: buyerId });
    expect((await call('GET', `/api/admin/purchases?userId=${buyerId}`, player)).statusCode).toBe(403);
    const bad = await call('GET', '/api/admin/purchases?userId=nobody', admin);
    expect(bad.statusCode).toBe(400);
    expect(ErrorBody.parse(bad.json()).message).toMatch(/userId/);
    expect((await call('GET', `/api/admin/purchases?userId=${buyerId}&limit=500`, admin)).statusCode).toBe(
      400,
    );

    const first = await listPurchases(buyerId, '&limit=1');
    expect(first.purchases).toHaveLength(1);
    expect(first.purchases[0]).toMatchObject({
      id: two.purchaseId,
      amount: 1.99,
      clicks: 500,
      status: 'voided',
      transactionId: two.transactionId,
      refund: { status: 'completed', kind: 'void', reason: 'Charged twice by mistake' },
    });
    expect(first.nextCursor).toBeTruthy();
    const second = await listPurchases(buyerId, `&limit=1&cursor=${first.nextCursor}`);
    expect(second.purchases.map((p) => [p.id, p.status, p.transactionId, p.refund])).toEqual([
      [one.purchaseId, 'succeeded', one.transactionId, null],
    ]);
    expect(second.nextCursor).toBeNull();

    // Payouts: the house collected by this admin, with PayPal's batch id.
    await collectHouse();
    const payouts = AdminPayoutsPage.parse(
      (await call('GET', `/api/admin/payouts?userId=${adminId}`, admin)).json(),
    );
    expect(payouts.payouts.length).toBeGreaterThan(0);
    const paid = await h.emulator.client.payouts();
    expect(payouts.payouts[0]).toMatchObject({
      kind: 'house',
      status: 'completed',
      batchId: paid[paid.length - 1]!.payoutBatchId,
    });
  });

  async function listPurchases(userId: string, extra = '') {
    const response = await call('GET', `/api/admin/purchases?userId=${userId}${extra}`, admin);
    expect(response.statusCode).toBe(200);
    return AdminPurchasesPage.parse(response.json());
  }

  /** The admin collects the whole house balance (if any); the cents paid. */
  async function collectHouse(): Promise<number> {
    await h.publish(SUBJECTS.userRegistered, {
      userId: adminId,
      username: 'operator',
      email: 'operator@example.com',
      role: 'admin',
      preferredLanguage: 'en',
    });
    // Set and confirmed from the mail, as a new payout address must be.
    expect((await h.setPayoutEmail(admin, 'operator@example.com')).statusCode).toBe(200);
    const collected = await payHouse(h.app, adminId);
    if (collected.statusCode === 409) return 0;
    expect(collected.statusCode).toBe(200);
    return Math.round(collected.json().amount * 100);
  }
});
