// What PayPal's answers mean for a payout: only an answer that says the batch was refused before it
// existed releases the balance; any other answer keeps the payout pending and is looked up with the same
// sender_batch_id, so a second collect never pays twice. And after payment, PayPal's item status is read
// back: money PayPal gives back (RETURNED, FAILED, REFUNDED, REVERSED) returns to the account it left.
import { SUBJECTS } from '@omc/contracts';
import { eventually } from '@omc/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { moneyAuditOf } from '../src/audit/money-audit.repo.js';
import { ACCOUNTS, winningsAccount } from '../src/ledger/accounts.js';
import { balance } from '../src/ledger/ledger.repo.js';
import { newUserId, payHouse, startHarness, type Harness } from './harness.js';

describe("PayPal's answers and item statuses", () => {
  let h: Harness;
  let round = 1000;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(async () => {
    await h.emulator.client.reset();
  });
  afterEach(async () => h.assertLedgerBalances());

  const collect = (token: string) =>
    h.app.inject({
      method: 'POST',
      url: '/api/winners/collect',
      headers: { authorization: `Bearer ${token}` },
    });
  const payoutRows = (userId: string) =>
    h.deps.db.selectFrom('payouts').selectAll().where('user_id', '=', userId).orderBy('created_at').execute();
  const winnings = (userId: string) => balance(h.deps.db, winningsAccount(userId));

  /** A winner of a pot a buyer filled with one 9.99 pack, with a confirmed PayPal email. */
  async function winner(): Promise<{ userId: string; token: string; potCents: number }> {
    const buyer = await h.token({ sub: newUserId() });
    const bought = await h.app.inject({
      method: 'POST',
      url: '/api/payments/checkout',
      headers: { authorization: `Bearer ${buyer}` },
      payload: { paymentMethodNonce: 'fake-valid-nonce', amount: '9.99', idempotencyKey: randomUUID() },
    });
    expect(bought.json().success).toBe(true);
    const potCents = Math.floor((999 * 50) / 100);
    const userId = newUserId();
    const win = {
      round: ++round,
      winnerUserId: userId,
      winnerUsername: 'winner',
      potCents,
      clicks: 100,
      wonAt: new Date().toISOString(),
    };
    h.game.wins.set(win.round, win);
    await h.publish(SUBJECTS.roundWon, win);
    await eventually(async () => (await winnings(userId)) === potCents, 'winnings credited');
    const token = await h.token({ sub: userId });
    expect((await h.setPayoutEmail(token, `w${round}@example.com`)).statusCode).toBe(200);
    return { userId, token, potCents };
  }

  describe('an answer that does not say "not sent" releases nothing', () => {
    it.each([
      ['409', { status: 409 }],
      ['400 with a name PayPal does not document as a refusal', { status: 400 }],
      ['422 USER_BUSINESS_ERROR without the duplicate detail', { status: 422, name: 'USER_BUSINESS_ERROR' }],
      ['404', { status: 404 }],
      ['500', { status: 500 }],
      ['503', { status: 503 }],
    ])(
      'a %s answered after PayPal made the batch: looked up, paid once, never twice',
      async (_answer, fault) => {
        const w = await winner();
        await h.emulator.client.fault({
          target: 'paypal.payouts',
          kind: 'status',
          afterEffect: true,
          ...fault,
        });
        const first = await collect(w.token);
        const second = await collect(w.token);
        // Paid once: the second collect sends no new batch.
        const payouts = await h.emulator.client.payouts();
        expect(payouts).toHaveLength(1);
        // The same sender_batch_id sent again found the batch PayPal made: paid, with its batch id.
        expect(first.statusCode).toBe(200);
        expect(first.json().transactionId).toBe(payouts[0]!.payoutBatchId);
        expect(second.statusCode).toBe(409);
        expect(await winnings(w.userId)).toBe(0);
        expect((await payoutRows(w.userId)).map((p) => p.status)).toEqual(['completed']);
      },
    );

    it('an unknown 4xx on every attempt keeps the payout pending and reserved; the next collect pays that one', async () => {
      const w = await winner();
      await h.emulator.client.fault({ target: 'paypal.payouts', kind: 'status', status: 400, times: 5 });
      const first = await collect(w.token);
      expect(first.statusCode).toBe(502);
      expect(first.json().message).toMatch(/balance is intact/);
      expect(await winnings(w.userId)).toBe(w.potCents);
      const [held] = await payoutRows(w.userId);
      expect(held).toMatchObject({ status: 'pending' });
      const again = await collect(w.token);
      expect(again.statusCode).toBe(200);
      const payouts = await h.emulator.client.payouts();
      expect(payouts.map((p) => p.senderBatchId)).toEqual([held!.id]);
      expect((await payoutRows(w.userId)).map((p) => [p.id, p.status])).toEqual([[held!.id, 'completed']]);
      expect(await winnings(w.userId)).toBe(0);
    });

    it('a batch PayPal made whose lookup fails stays pending until the reconciler finds it, then is paid', async () => {
      const w = await winner();
      await h.emulator.client.fault({
        target: 'paypal.payouts',
        kind: 'status',
        status: 409,
        afterEffect: true,
      });
      await h.emulator.client.fault({ target: 'paypal.getBatch', kind: 'status', status: 503, times: 5 });
      const first = await collect(w.token);
      expect(first.statusCode).toBe(502);
      expect(await winnings(w.userId)).toBe(w.potCents);
      expect((await payoutRows(w.userId)).map((p) => p.status)).toEqual(['pending']);
      // The reconciler asks again with the same sender_batch_id and finds the batch: paid.
      expect(await h.app.payments.payouts.reconcilePending()).toBe(1);
      const payouts = await h.emulator.client.payouts();
      expect(payouts).toHaveLength(1);
      expect(await payoutRows(w.userId)).toEqual([
        expect.objectContaining({ status: 'completed', provider_batch_id: payouts[0]!.payoutBatchId }),
      ]);
      expect(await winnings(w.userId)).toBe(0);
      expect((await collect(w.token)).statusCode).toBe(409);
      expect(await h.emulator.client.payouts()).toHaveLength(1);
    });

    it('a refusal after an attempt that may have reached PayPal is not trusted: pending, then paid once', async () => {
      const w = await winner();
      // The first attempt's answer is lost (PayPal may have the batch); the next ones say INSUFFICIENT_FUNDS.
      await h.emulator.client.fault({
        target: 'paypal.payouts',
        kind: 'timeout',
        delayMs: 1200,
        afterEffect: false,
      });
      await h.emulator.client.fault({
        target: 'paypal.payouts',
        kind: 'status',
        status: 422,
        name: 'INSUFFICIENT_FUNDS',
        times: 4,
      });
      expect((await collect(w.token)).statusCode).toBe(502);
      const [held] = await payoutRows(w.userId);
      expect(held).toMatchObject({ status: 'pending' });
      expect(await winnings(w.userId)).toBe(w.potCents);
      // Resumed, the payout is one that may have been sent: PayPal's refusal keeps it pending.
      await h.emulator.client.fault({
        target: 'paypal.payouts',
        kind: 'status',
        status: 422,
        name: 'INSUFFICIENT_FUNDS',
        times: 5,
      });
      expect((await collect(w.token)).statusCode).toBe(502);
      expect((await payoutRows(w.userId)).map((p) => [p.id, p.status])).toEqual([[held!.id, 'pending']]);
      expect(await h.app.payments.payouts.reconcilePending()).toBe(1);
      expect((await h.emulator.client.payouts()).map((p) => p.senderBatchId)).toEqual([held!.id]);
      expect(await winnings(w.userId)).toBe(0);
    });

    it.each([
      [422, 'INSUFFICIENT_FUNDS'],
      [400, 'VALIDATION_ERROR'],
      [403, 'AUTHORIZATION_ERROR'],
    ])(
      'a %s %s on the first attempt is a refusal: failed, the balance kept, a new collect pays',
      async (status, name) => {
        const w = await winner();
        await h.emulator.client.fault({ target: 'paypal.payouts', kind: 'status', status, name });
        const refused = await collect(w.token);
        expect(refused.statusCode).toBe(502);
        expect(refused.json().message).toMatch(new RegExp(`PayPal refused the payout: ${name}`));
        expect((await payoutRows(w.userId)).map((p) => p.status)).toEqual(['failed']);
        expect(await h.emulator.client.payouts()).toHaveLength(0);
        expect(await winnings(w.userId)).toBe(w.potCents);
        expect((await collect(w.token)).statusCode).toBe(200);
        expect(await h.emulator.client.payouts()).toHaveLength(1);
      },
    );
  });

  it('a payout still unknown 29 days after its creation is not sent again: reserved, for an operator', async () => {
    const w = await winner();
    const payoutId = randomUUID();
    await h.deps.db
      .insertInto('payouts')
      .values({
        id: payoutId,
        user_id: w.userId,
        kind: 'winnings',
        account_id: winningsAccount(w.userId),
        amount_cents: w.potCents,
        paypal_email: 'old@example.com',
        status: 'pending',
        attempts: 5,
        created_at: new Date(Date.now() - 30 * 24 * 3_600_000),
      })
      .execute();
    await h.app.payments.payouts.reconcilePending();
    const answer = await collect(w.token);
    expect(answer.statusCode).toBe(502);
    expect(answer.json().message).toMatch(/checked with PayPal by the operator/);
    expect(await h.emulator.client.payouts()).toEqual([]);
    expect(await payoutRows(w.userId)).toEqual([
      expect.objectContaining({
        id: payoutId,
        status: 'pending',
        error: expect.stringMatching(/settle by hand/),
      }),
    ]);
    expect(await winnings(w.userId)).toBe(w.potCents);
    // Settled by hand out of the test's way: the payout failed, nothing was paid.
    await h.deps.db.updateTable('payouts').set({ status: 'failed' }).where('id', '=', payoutId).execute();
  });

  describe("PayPal's item status, read back after payment", () => {
    async function paidWinner() {
      const w = await winner();
      expect((await collect(w.token)).statusCode).toBe(200);
      const [payout] = await payoutRows(w.userId);
      expect(await winnings(w.userId)).toBe(0);
      return { ...w, payoutId: payout!.id };
    }
    const returnMovement = (payoutId: string) =>
      h.deps.db
        .selectFrom('ledger_transactions')
        .selectAll()
        .where('reference', '=', `payout-return:${payoutId}`)
        .execute();

    it.each(['RETURNED', 'FAILED', 'REFUNDED', 'REVERSED'])(
      'an item %s returns the money to the winnings, once, with a ledger movement and the reason',
      async (status) => {
        const w = await paidWinner();
        await h.emulator.client.setPayoutStatus(w.payoutId, status);
        await h.app.payments.finishMoney();
        await h.app.payments.finishMoney();
        expect(await winnings(w.userId)).toBe(w.potCents);
        expect(await returnMovement(w.payoutId)).toEqual([
          expect.objectContaining({ kind: 'payout_return' }),
        ]);
        const [row] = await payoutRows(w.userId);
        expect(row).toMatchObject({
          status: 'completed',
          item_status: status,
          returned_at: expect.any(Date),
        });
        const audit = await moneyAuditOf(h.deps.db, 'payout.returned', w.payoutId);
        expect(audit).toHaveLength(1);
        expect(audit[0]!.detail).toMatchObject({
          itemStatus: status,
          amountCents: w.potCents,
          reason: expect.stringContaining(`PayPal reports the payout item ${status}`),
        });
        // The money is the winner's again: a new collect pays it (a new batch), once.
        expect((await collect(w.token)).statusCode).toBe(200);
        expect(await h.emulator.client.payouts()).toHaveLength(2);
        expect(await winnings(w.userId)).toBe(0);
      },
    );

    it('a read PayPal does not answer changes nothing and is made again next pass', async () => {
      const w = await paidWinner();
      await h.emulator.client.setPayoutStatus(w.payoutId, 'RETURNED');
      await h.emulator.client.fault({ target: 'paypal.getBatch', kind: 'status', status: 503 });
      await h.app.payments.finishMoney();
      expect(await winnings(w.userId)).toBe(0);
      expect((await payoutRows(w.userId))[0]).toMatchObject({ returned_at: null });
      await h.app.payments.finishMoney();
      expect(await winnings(w.userId)).toBe(w.potCents);
      expect(await returnMovement(w.payoutId)).toHaveLength(1);
    });

    it('an UNCLAIMED item stays paid and is read again each pass, until PayPal returns it', async () => {
      const w = await paidWinner();
      await h.emulator.client.setPayoutStatus(w.payoutId, 'UNCLAIMED');
      await h.app.payments.finishMoney();
      const [first] = await payoutRows(w.userId);
      expect(first).toMatchObject({ item_status: 'UNCLAIMED', returned_at: null });
      expect(await winnings(w.userId)).toBe(0);
      expect(await returnMovement(w.payoutId)).toEqual([]);
      await h.app.payments.finishMoney();
      const [second] = await payoutRows(w.userId);
      expect(second!.item_checked_at!.getTime()).toBeGreaterThanOrEqual(first!.item_checked_at!.getTime());
      expect(await winnings(w.userId)).toBe(0);
      // Unclaimed for 30 days, PayPal returns it.
      await h.emulator.client.setPayoutStatus(w.payoutId, 'RETURNED');
      await h.app.payments.finishMoney();
      expect(await winnings(w.userId)).toBe(w.potCents);
      expect(await returnMovement(w.payoutId)).toHaveLength(1);
    });

    it('a SUCCESS item is final: it is not read again', async () => {
      const w = await paidWinner();
      await h.app.payments.finishMoney();
      expect((await payoutRows(w.userId))[0]).toMatchObject({ item_status: 'SUCCESS', returned_at: null });
      await h.emulator.client.setPayoutStatus(w.payoutId, 'RETURNED');
      await h.app.payments.finishMoney();
      expect(await winnings(w.userId)).toBe(0);
      expect(await returnMovement(w.payoutId)).toEqual([]);
    });

    it('a returned house payout goes back to the house', async () => {
      const adminId = newUserId();
      const admin = await h.token({ sub: adminId, role: 'admin' });
      await h.publish(SUBJECTS.userRegistered, {
        userId: adminId,
        username: 'house',
        email: 'house@example.com',
        role: 'admin',
        preferredLanguage: 'es',
      });
      await winner(); // a purchase, so the house holds something
      await h.emulator.client.reset();
      await h.setPayoutEmail(admin, 'house@example.com');
      const house = await balance(h.deps.db, ACCOUNTS.house);
      expect(house).toBeGreaterThan(0);
      const collected = await payHouse(h.app, adminId);
      expect(collected.statusCode).toBe(200);
      expect(await balance(h.deps.db, ACCOUNTS.house)).toBe(0);
      const [payout] = await h.emulator.client.payouts();
      await h.emulator.client.setPayoutStatus(payout!.senderBatchId, 'REVERSED');
      await h.app.payments.finishMoney();
      expect(await balance(h.deps.db, ACCOUNTS.house)).toBe(house);
    });
  });
});
