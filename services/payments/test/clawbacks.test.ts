// Money follows the provider: when Braintree takes a purchase's money back (a dispute lost, a settlement
// declined), the purchase's unspent clicks and pot share are taken back through the refunds' take-back,
// what was spent is the house's loss in the ledger, and the admin's view says clawed_back; a winner's
// collect is held while a purchase made before the win may still be taken back, and released once it
// settles. Signed webhooks and settlements from the emulator, read by the real SDK.
import { ERROR_CODE, SUBJECTS } from '@omc/contracts';
import { eventually } from '@omc/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { moneyAuditOf } from '../src/audit/money-audit.repo.js';
import { ACCOUNTS, winningsAccount } from '../src/ledger/accounts.js';
import { balance } from '../src/ledger/ledger.repo.js';
import { newUserId, startHarness, type Harness } from './harness.js';

describe('clawbacks and payout holds', () => {
  let h: Harness;
  let admin: string;
  let round = 7000;

  beforeAll(async () => {
    h = await startHarness();
    admin = await h.token({ sub: newUserId(), username: 'operator', role: 'admin' });
  });
  afterAll(async () => h?.close());
  beforeEach(async () => {
    await h.emulator.client.reset();
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
  const deliver = (notification: { bt_signature: string; bt_payload: string }) =>
    h.app.inject({
      method: 'POST',
      url: '/api/payments/webhooks/braintree',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(notification).toString(),
    });
  const webhook = async (kind: string, transactionId: string) => {
    const answer = await deliver(await h.emulator.client.webhook(kind, transactionId));
    expect(answer.statusCode).toBe(200);
    return answer.json();
  };

  /** A player buys a pack; the purchase's id and Braintree transaction id. */
  async function buy(amount: string, buyerId = newUserId()) {
    const buyer = await h.token({ sub: buyerId });
    const response = await call('POST', '/api/payments/checkout', buyer, {
      paymentMethodNonce: 'fake-valid-nonce',
      amount,
      idempotencyKey: `cb-${randomUUID()}`,
    });
    expect(response.json().success).toBe(true);
    const transactionId = response.json().transactionId as string;
    const row = await h.deps.db
      .selectFrom('purchases')
      .select('id')
      .where('provider_transaction_id', '=', transactionId)
      .executeTakeFirstOrThrow();
    return { purchaseId: row.id, transactionId, buyerId, token: buyer };
  }

  /** The game records the win and announces it; resolves once payments credited it. */
  async function win(userId: string): Promise<number> {
    const potCents = await balance(h.deps.db, ACCOUNTS.roundPot);
    const record = {
      round: ++round,
      winnerUserId: userId,
      winnerUsername: 'winner',
      potCents,
      clicks: 100,
      wonAt: new Date().toISOString(),
    };
    h.game.wins.set(record.round, record);
    await h.publish(SUBJECTS.roundWon, record);
    await eventually(
      async () => (await balance(h.deps.db, winningsAccount(userId))) >= potCents,
      'winnings credited',
    );
    return potCents;
  }

  /** A movement's entries by account, or undefined when it was never posted. */
  async function movement(reference: string): Promise<Record<string, number> | undefined> {
    const rows = await h.deps.db
      .selectFrom('ledger_transactions as t')
      .innerJoin('ledger_entries as e', 'e.transaction_id', 't.id')
      .select(['t.kind', 'e.account_id', 'e.amount_cents'])
      .where('t.reference', '=', reference)
      .execute();
    if (rows.length === 0) return undefined;
    expect(rows.every((r) => r.kind === 'clawback')).toBe(true);
    return Object.fromEntries(rows.map((r) => [r.account_id, Number(r.amount_cents)]));
  }

  const adminView = async (buyerId: string, purchaseId: string) => {
    const page = await call('GET', `/api/admin/purchases?userId=${buyerId}`, admin);
    expect(page.statusCode).toBe(200);
    return page.json().purchases.find((p: { id: string }) => p.id === purchaseId);
  };
  const clawbackOf = (purchaseId: string) =>
    h.deps.db.selectFrom('clawbacks').selectAll().where('purchase_id', '=', purchaseId).executeTakeFirst();

  it('a lost dispute takes back the unspent clicks and the pot share before the webhook is answered; the spent clicks are the house loss', async () => {
    // 500 clicks for 1.99 €: 99 c to the pot, 100 c to the house. The buyer spent 100 clicks of them.
    const { purchaseId, transactionId, buyerId } = await buy('1.99');
    h.game.takeBacks.set(purchaseId, { round: 1, roundInPlay: true, clicks: 400, pass: false, potCents: 99 });
    const houseBefore = await balance(h.deps.db, ACCOUNTS.house);

    expect(await webhook('dispute_lost', transactionId)).toEqual({
      received: true,
      kind: 'dispute_lost',
      duplicate: false,
    });

    // The bound: taken back by the time the webhook is answered (the game answering).
    expect(h.game.takeBackCalls).toEqual([{ purchaseId, authorization: undefined }]);
    expect(await clawbackOf(purchaseId)).toMatchObject({
      cause: 'dispute_lost',
      status: 'completed',
      clicks_taken: 400,
      clicks_spent: 100,
      pot_cents: 99,
      house_cents: 80,
      loss_cents: 20,
      uncovered_cents: 0,
    });
    // What came back: the pot share from the pot, the house's share of the 400 unspent clicks.
    expect(await movement(`clawback:${purchaseId}`)).toEqual({
      [ACCOUNTS.braintreeCashIn]: 179,
      [ACCOUNTS.roundPot]: -99,
      [ACCOUNTS.house]: -80,
    });
    // The 100 spent clicks: a loss to the house, a movement of its own.
    expect(await movement(`clawback-loss:${purchaseId}`)).toEqual({
      [ACCOUNTS.braintreeCashIn]: 20,
      [ACCOUNTS.house]: -20,
    });
    expect(await balance(h.deps.db, ACCOUNTS.house)).toBe(houseBefore - 100);
    const audit = await moneyAuditOf(h.deps.db, 'purchase.clawed_back', purchaseId);
    expect(audit).toHaveLength(1);
    expect(audit[0]!.detail).toMatchObject({ cause: 'dispute_lost', clicksTaken: 400, lossCents: 20 });

    expect(await adminView(buyerId, purchaseId)).toMatchObject({
      status: 'clawed_back',
      disputeStatus: 'lost',
      clawback: {
        cause: 'dispute_lost',
        status: 'completed',
        amount: 1.99,
        clicksTakenBack: 400,
        clicksSpent: 100,
        potTakenBack: 0.99,
        houseTakenBack: 0.8,
        houseLoss: 0.2,
        operatorLoss: 0,
      },
    });
    // Cleared through the clawback: no refund on top of it, and the same webhook again moves nothing.
    const refund = await call('POST', `/api/admin/purchases/${purchaseId}/refund`, admin, {
      reason: 'Refund after the chargeback',
    });
    expect(refund.statusCode).toBe(409);
    expect(refund.json().message).toMatch(/already took this purchase's money back/);
    expect(await deliver(await h.emulator.client.webhook('dispute_lost', transactionId))).toMatchObject({
      statusCode: 200,
    });
    expect(h.game.takeBackCalls).toHaveLength(1);
  });

  it('a declined settlement takes back the purchase; a round already over leaves the whole price as the house loss', async () => {
    const { purchaseId, transactionId, buyerId } = await buy('0.99');
    h.game.takeBacks.set(purchaseId, { round: 1, roundInPlay: false, clicks: 0, pass: false, potCents: 0 });
    const houseBefore = await balance(h.deps.db, ACCOUNTS.house);

    await webhook('transaction_settlement_declined', transactionId);

    const [sale] = await h.emulator.client.transactions(purchaseId);
    expect(sale?.status).toBe('settlement_declined');
    expect(h.game.takeBackCalls).toEqual([{ purchaseId, authorization: undefined }]);
    const houseLoss = Math.min(99, houseBefore);
    expect(await clawbackOf(purchaseId)).toMatchObject({
      cause: 'settlement_declined',
      status: 'completed',
      clicks_taken: 0,
      clicks_spent: 100,
      pot_cents: 0,
      house_cents: 0,
      loss_cents: 99,
      uncovered_cents: 99 - houseLoss,
    });
    expect(await movement(`clawback:${purchaseId}`)).toBeUndefined();
    expect(await movement(`clawback-loss:${purchaseId}`)).toEqual({
      [ACCOUNTS.braintreeCashIn]: 99,
      [ACCOUNTS.house]: -houseLoss,
      ...(houseLoss < 99 ? { [ACCOUNTS.clawbackLosses]: houseLoss - 99 } : {}),
    });
    expect(await adminView(buyerId, purchaseId)).toMatchObject({
      status: 'clawed_back',
      settlementStatus: 'settlement_declined',
    });
  });

  it('a clawback the game cannot take back yet is finished by the next money pass', async () => {
    const { purchaseId, transactionId, buyerId } = await buy('0.99');
    h.game.takeBackDown = true;
    try {
      await webhook('dispute_accepted', transactionId);
      expect(await clawbackOf(purchaseId)).toMatchObject({ status: 'taking_back' });
      expect(await adminView(buyerId, purchaseId)).toMatchObject({ status: 'clawback_in_progress' });
    } finally {
      h.game.takeBackDown = false;
    }
    await h.app.payments.finishMoney();
    expect(await clawbackOf(purchaseId)).toMatchObject({ status: 'completed', clicks_taken: 100 });
    expect(await movement(`clawback:${purchaseId}`)).toMatchObject({ [ACCOUNTS.roundPot]: -49 });
  });

  describe("a winner's collect", () => {
    async function winnerWithPurchase(amount = '0.99') {
      const bought = await buy(amount);
      const potCents = await win(bought.buyerId);
      expect(
        (await h.setPayoutEmail(bought.token, `w-${bought.buyerId}@paypal.example.com`)).statusCode,
      ).toBe(200);
      return { ...bought, potCents };
    }
    const collect = (token: string) => call('POST', '/api/winners/collect', token);
    const profile = async (token: string) =>
      (await call('GET', '/api/payments/profile', token)).json() as { payoutHeld?: string };

    it('is held (409 PAYOUT_HELD, the reason to the player and the admins) while a purchase before the win is unsettled, and released once it settles', async () => {
      const w = await winnerWithPurchase();
      const held = await collect(w.token);
      expect(held.statusCode).toBe(409);
      expect(held.json()).toMatchObject({
        code: ERROR_CODE.PAYOUT_HELD,
        message: expect.stringMatching(/held: a purchase of yours made before your win has not settled/),
      });
      expect(await h.emulator.client.payouts()).toEqual([]);
      expect((await h.app.inject('/metrics')).body).toMatch(
        /^payments_payouts_total\{outcome="held"[^}]*\} [1-9]/m,
      );
      expect((await profile(w.token)).payoutHeld).toMatch(/has not settled/);
      const payouts = await call('GET', `/api/admin/payouts?userId=${w.buyerId}`, admin);
      expect(payouts.json().payoutHeld).toMatch(/has not settled/);

      // Braintree's settlement batch runs; the money pass reads it and releases the hold by itself.
      await h.emulator.client.settle(w.transactionId);
      await h.app.payments.finishMoney();
      expect((await profile(w.token)).payoutHeld).toBeUndefined();
      const paid = await collect(w.token);
      expect(paid.statusCode).toBe(200);
      expect(paid.json().amount).toBe(w.potCents / 100);
    });

    it('is released by the collect itself once Braintree reports the sale settled', async () => {
      const w = await winnerWithPurchase();
      expect((await collect(w.token)).statusCode).toBe(409);
      await h.emulator.client.settle(w.transactionId);
      expect((await collect(w.token)).statusCode).toBe(200);
    });

    it('is held while a purchase is disputed, and released when the dispute is won', async () => {
      const w = await winnerWithPurchase();
      await h.emulator.client.settle(w.transactionId);
      await webhook('dispute_opened', w.transactionId);
      const held = await collect(w.token);
      expect(held.statusCode).toBe(409);
      expect(held.json()).toMatchObject({
        code: ERROR_CODE.PAYOUT_HELD,
        message: expect.stringMatching(/disputing a purchase of yours/),
      });
      await webhook('dispute_won', w.transactionId);
      expect((await collect(w.token)).statusCode).toBe(200);
    });

    it('stays held once a purchase before the win was taken back (a stolen card that won the pot)', async () => {
      const w = await winnerWithPurchase('9.99');
      h.game.takeBacks.set(w.purchaseId, {
        round: 1,
        roundInPlay: false,
        clicks: 0,
        pass: false,
        potCents: 0,
      });
      await webhook('dispute_lost', w.transactionId);
      expect(await clawbackOf(w.purchaseId)).toMatchObject({ status: 'completed' });
      const held = await collect(w.token);
      expect(held.statusCode).toBe(409);
      expect(held.json().message).toMatch(/took back the money of a purchase of yours/);
      expect(await h.emulator.client.payouts()).toEqual([]);
    });

    it('a declined settlement no webhook reports is found by the money pass reading Braintree', async () => {
      const w = await winnerWithPurchase();
      await h.emulator.client.settle(w.transactionId, 'settlement_declined');
      await h.app.payments.finishMoney();
      expect(await clawbackOf(w.purchaseId)).toMatchObject({
        cause: 'settlement_declined',
        status: 'completed',
      });
      expect((await collect(w.token)).statusCode).toBe(409);
    });
  });
});
