// Attacks on money through the gateway: tampered prices, replayed and concurrent checkouts and collects,
// someone else's idempotency key, and the provider failing or losing its answer. Nothing is charged,
// credited or paid twice, nothing is lost, and the ledger balances.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkout,
  collect,
  gameProfile,
  newKey,
  paymentsProfile,
  setPayoutEmail,
  untilGameKnows,
  verifyAdmin,
  verifyEmails,
  winRoundWithPass,
} from '../src/actions.js';
import { figures, invariant, reportFigures, suite, violations } from '../src/context.js';
import { checkMoney, providerRecords } from '../src/invariants.js';
import { call, login, loginAdmin, registerPlayer, waitFor, type Player } from '../src/http.js';
import type { PurchaseRecord, CollectRecord } from '../src/actions.js';

let admin: Player;
let buyer: Player;
let winner: Player;
const purchases: PurchaseRecord[] = [];
const collects: CollectRecord[] = [];

async function emulatorFault(body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${suite().urls.emulators}/__emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
}

async function charges(): Promise<number> {
  return (await providerRecords()).charges.filter((c) => c.charged).length;
}

async function purchased(player: Player): Promise<number> {
  return (await gameProfile(player))?.purchasedClicks ?? -1;
}

beforeAll(async () => {
  // Each test queues its own provider faults; none may be left from elsewhere.
  const { pending } = (await (await fetch(`${suite().urls.emulators}/__emulator/faults`)).json()) as {
    pending: Record<string, number>;
  };
  expect(pending, 'provider faults left queued before the money tests').toEqual({});
  admin = await loginAdmin();
  buyer = await registerPlayer('buyer');
  // A standard player: a staff account's win goes to the house (docs/game.md).
  winner = await registerPlayer('winner');
  await untilGameKnows(buyer);
  await untilGameKnows(winner);
});
afterAll(async () => {
  await checkMoney(purchases, collects, { scenario: 'money attacks' });
  await reportFigures();
  expect(violations()).toEqual([]);
});

describe('prices', () => {
  it("an amount that is not a pack's price is refused, charged nowhere and credits nothing", async () => {
    const chargesBefore = await charges();
    const clicksBefore = await purchased(buyer);
    for (const amount of [
      '0.01',
      '0.98',
      '0.990',
      '1',
      '0',
      '-0.99',
      '99.99',
      '0.99 ',
      '1e2',
      '0x63',
      '9.99.',
      'NaN',
      '4.989999',
    ]) {
      figures.attacks += 1;
      const answer = await call('POST', '/api/payments/checkout', {
        token: buyer.token,
        body: { paymentMethodNonce: 'fake-valid-nonce', amount, idempotencyKey: newKey() },
      });
      invariant(
        `amount ${JSON.stringify(amount)} is a 400`,
        answer.status === 400,
        `${answer.status} ${answer.text.slice(0, 160)}`,
      );
      invariant(
        `amount ${JSON.stringify(amount)} names the amount`,
        /amount/i.test(JSON.stringify(answer.body ?? {})),
        answer.text.slice(0, 160),
      );
    }
    invariant('no charge for a tampered price', (await charges()) === chargesBefore);
    invariant('no clicks for a tampered price', (await purchased(buyer)) === clicksBefore);
    expect(violations()).toEqual([]);
  });

  it('extra fields do not choose the pack, the clicks, the price or the buyer', async () => {
    const clicksBefore = await purchased(buyer);
    figures.attacks += 1;
    const answer = await call('POST', '/api/payments/checkout', {
      token: buyer.token,
      body: {
        paymentMethodNonce: 'fake-valid-nonce',
        amount: '0.99',
        idempotencyKey: newKey(),
        clicks: 1_000_000,
        price: '0.01',
        packId: 'unlimited',
        amountCents: 1,
        userId: winner.username,
        unlimited: true,
      },
    });
    if (answer.status === 200 && answer.body.success) {
      purchases.push({
        user: buyer.username,
        amount: '0.99',
        key: '',
        status: 200,
        success: true,
        transactionId: answer.body.transactionId,
      });
      await waitFor(
        'the pack to be credited',
        async () => (await purchased(buyer)) === clicksBefore + 100,
        20_000,
      );
      invariant(
        'the 0.99 pack credits 100 clicks, whatever else is sent',
        (await purchased(buyer)) === clicksBefore + 100,
      );
      invariant('the buyer is not unlimited', (await gameProfile(buyer))?.hasInfiniteClicks === false);
      const charge = (await providerRecords()).charges.find((c) => c.id === answer.body.transactionId);
      invariant("the charge is the pack's price", charge?.amountCents === 99, charge);
    } else {
      invariant('extra fields are refused with a 400', answer.status === 400, answer.status);
    }
    expect(violations()).toEqual([]);
  });
});

describe('replays', () => {
  it('a checkout replayed with its key, in sequence and all at once, is charged and credited once', async () => {
    const clicksBefore = await purchased(buyer);
    const chargesBefore = await charges();
    const key = newKey();
    const first = await checkout(buyer, '0.99', key);
    purchases.push(first);
    expect(first.success).toBe(true);
    figures.attacks += 9;
    const again = await checkout(buyer, '0.99', key);
    invariant('a replay answers the same transaction', again.transactionId === first.transactionId, again);
    const burst = await Promise.all(Array.from({ length: 8 }, () => checkout(buyer, '0.99', key)));
    invariant(
      'a burst of replays answers the same transaction',
      burst.every((b) => b.status === 409 || b.transactionId === first.transactionId),
      burst.map((b) => b.status),
    );

    const freshKey = newKey();
    const race = await Promise.all(Array.from({ length: 8 }, () => checkout(buyer, '0.99', freshKey)));
    purchases.push(...race);
    const ids = new Set(race.filter((r) => r.success).map((r) => r.transactionId));
    invariant('eight concurrent first tries with one key make one transaction', ids.size === 1, [...ids]);
    invariant(
      'concurrent tries are answered 200 or 409, never 5xx',
      race.every((r) => r.status === 200 || r.status === 409),
      race.map((r) => r.status),
    );

    await waitFor(
      'both packs to be credited',
      async () => (await purchased(buyer)) >= clicksBefore + 200,
      20_000,
    ).catch(() => undefined);
    invariant('two purchases, two packs credited', (await purchased(buyer)) === clicksBefore + 200, {
      before: clicksBefore,
      after: await purchased(buyer),
    });
    invariant('two purchases, two charges', (await charges()) === chargesBefore + 2);
    expect(violations()).toEqual([]);
  });

  it("a key is the buyer's own: someone else using it buys for themselves, and another pack under it is refused", async () => {
    const key = newKey();
    const original = await checkout(buyer, '0.99', key);
    purchases.push(original);
    figures.attacks += 3;
    // Keys are per buyer: the same string from another account is that account's own purchase.
    const other = await checkout(winner, '0.99', key);
    purchases.push(other);
    invariant(
      "another user's use of a key never returns the first buyer's transaction",
      other.transactionId !== original.transactionId,
      other,
    );
    const chargesBefore = await charges();
    const changed = await checkout(buyer, '9.99', key);
    invariant('a key reused for another pack is a 409', changed.status === 409, changed);
    invariant('the reuse was not charged', (await charges()) === chargesBefore);
    const again = await checkout(buyer, '0.99', key);
    invariant(
      'the first purchase under the key is unchanged',
      again.transactionId === original.transactionId,
      again,
    );
    expect(violations()).toEqual([]);
  });
});

describe('the provider failing', () => {
  it('a charge whose answer is lost is found again, not charged twice', async () => {
    const clicksBefore = await purchased(buyer);
    await emulatorFault({ target: 'braintree.sale', kind: 'timeout', delayMs: 500, afterEffect: true });
    const key = newKey();
    const first = await checkout(buyer, '0.99', key);
    let settled = first;
    for (let i = 0; i < 60 && !settled.success; i++) {
      await new Promise((r) => setTimeout(r, 500));
      settled = await checkout(buyer, '0.99', key);
    }
    purchases.push(settled);
    invariant('the retry finds the lost charge and succeeds', settled.success === true, { first, settled });
    const orderCharges = (await providerRecords()).charges.filter(
      (c) => c.charged && c.id === settled.transactionId,
    );
    invariant('one charge for the purchase', orderCharges.length === 1, orderCharges);
    await waitFor(
      'the pack to be credited',
      async () => (await purchased(buyer)) >= clicksBefore + 100,
      20_000,
    ).catch(() => undefined);
    invariant('credited once', (await purchased(buyer)) === clicksBefore + 100);
    expect(violations()).toEqual([]);
  });

  it('a provider error charges nothing, and says so', async () => {
    const chargesBefore = await charges();
    await emulatorFault({ target: 'braintree.sale', kind: 'status', status: 503, times: 1 });
    const failed = await checkout(buyer, '0.99', newKey());
    invariant('a provider error is not a success', failed.success !== true, failed);
    invariant(
      'a provider error is a 502 or a declined answer, not a 500',
      failed.status === 502 || failed.status === 200,
      failed.status,
    );
    invariant('nothing charged', (await charges()) === chargesBefore);
    expect(violations()).toEqual([]);
  });
});

describe('collects', () => {
  it('concurrent and replayed collects pay the winnings once', async () => {
    // A pot to win: one purchase this round, then the winner takes the round on the unlimited pass.
    purchases.push(await checkout(buyer, '1.99', newKey()));
    const before = (await paymentsProfile(winner))?.potEarned ?? 0;
    await winRoundWithPass(winner, purchases);
    const { value: earned } = await waitFor('the winnings to be credited', async () => {
      const now = (await paymentsProfile(winner))?.potEarned ?? 0;
      return now > before ? now : undefined;
    });
    expect(await setPayoutEmail(winner)).toBe(200);
    const payoutsBefore = (await providerRecords()).payouts.length;
    // Not verified yet: refused with a 4xx naming the problem, and nothing moves.
    figures.attacks += 1;
    const unverified = await call('POST', '/api/winners/collect', { token: winner.token });
    invariant(
      "an unverified winner's collect is a 403 EMAIL_NOT_VERIFIED",
      unverified.status === 403 && unverified.body?.code === 'EMAIL_NOT_VERIFIED',
      unverified.text.slice(0, 200),
    );
    invariant(
      'the refusal says to verify the email',
      /verify your account email/i.test(unverified.body?.message ?? ''),
      unverified.text.slice(0, 200),
    );
    invariant(
      'an unverified collect pays nothing',
      (await providerRecords()).payouts.length === payoutsBefore,
    );
    invariant(
      'an unverified collect leaves the winnings',
      (await paymentsProfile(winner))?.potEarned === earned,
    );
    // The winner uses the link in the mail, as a player would; from then on the collect pays, once the
    // winner's own earlier purchase has settled: a collect reads the unsettled sales from Braintree first
    // and is paid at once when they all settled (docs/payments.md, "Release"). The emulator's settlement
    // batch runs now, as Braintree's nightly one would.
    await verifyEmails([winner]);
    const settled = await fetch(`${suite().urls.emulators}/__emulator/braintree/settlement-batch`, {
      method: 'POST',
    });
    expect(settled.status).toBe(200);
    figures.attacks += 8;
    const burst = await Promise.all(Array.from({ length: 8 }, () => collect(winner)));
    collects.push(...burst);
    const paid = burst.filter((c) => c.status === 200);
    invariant(
      'exactly one of eight concurrent collects pays',
      paid.length === 1,
      burst.map((c) => c.status),
    );
    invariant(
      'the others are refused with a 4xx',
      burst.every((c) => c.status === 200 || (c.status >= 400 && c.status < 500)),
      burst.map((c) => c.status),
    );
    const replay = await collect(winner);
    collects.push(replay);
    invariant(
      'a collect replayed after payment pays nothing',
      replay.status >= 400 && replay.status < 500,
      replay.status,
    );
    const after = await paymentsProfile(winner);
    invariant('nothing left to collect', after?.potEarned === 0, after);
    const payouts = (await providerRecords()).payouts.slice(payoutsBefore);
    invariant(
      'one payout at the provider, of the whole winnings',
      payouts.length === 1 && payouts[0]!.amountCents === Math.round(earned * 100),
      { payouts, earned },
    );
    expect(violations()).toEqual([]);
  });

  it('a payout whose answer is lost is paid once', async () => {
    // A winner of this test's own, ready to collect: a payout email set and the account email verified.
    const payee = await registerPlayer('payee');
    expect(await setPayoutEmail(payee)).toBe(200);
    await verifyEmails([payee]);
    await untilGameKnows(payee);
    purchases.push(await checkout(buyer, '0.99', newKey()));
    await winRoundWithPass(payee, purchases);
    await waitFor(
      'the winnings to be credited',
      async () => ((await paymentsProfile(payee))?.potEarned ?? 0) > 0,
    );
    const payoutsBefore = (await providerRecords()).payouts.length;
    await emulatorFault({ target: 'paypal.payouts', kind: 'timeout', delayMs: 500, afterEffect: true });
    const first = await collect(payee);
    collects.push(first);
    let settled = first;
    for (
      let i = 0;
      i < 40 && settled.status !== 200 && ((await paymentsProfile(payee))?.potEarned ?? 0) > 0;
      i++
    ) {
      await new Promise((r) => setTimeout(r, 500));
      settled = await collect(payee);
      collects.push(settled);
    }
    await waitFor(
      'the payout to settle',
      async () => (await paymentsProfile(payee))?.potEarned === 0,
      30_000,
    ).catch(() => undefined);
    const payouts = (await providerRecords()).payouts.slice(payoutsBefore);
    invariant('the lost payout is paid exactly once', payouts.length === 1, payouts);
    invariant('nothing left to collect', (await paymentsProfile(payee))?.potEarned === 0);
    expect(violations()).toEqual([]);
  });

  // A fault at every step takes minutes: `npm run test:chaos` runs it (money.chaos.test.ts).
  it.runIf(process.env.OMC_SUITE === 'chaos')(
    'the fault matrix: a fault at every step of a payout and of a checkout, each settled exactly once',
    async () => {
      const payoutPoints: [string, Record<string, unknown>[]][] = [
        ['before the request', [{ target: 'paypal.oauth', kind: 'status', status: 503, times: 2 }]],
        ['lost request', [{ target: 'paypal.payouts', kind: 'timeout', delayMs: 300, afterEffect: false }]],
        ['lost answer', [{ target: 'paypal.payouts', kind: 'timeout', delayMs: 300, afterEffect: true }]],
        ['cut body', [{ target: 'paypal.payouts', kind: 'cut' }]],
        ['duplicate answer', [{ target: 'paypal.payouts', kind: 'duplicate' }]],
        [
          'lookup failure',
          [
            { target: 'paypal.payouts', kind: 'duplicate' },
            { target: 'paypal.getBatch', kind: 'timeout', delayMs: 300, afterEffect: false, times: 5 },
          ],
        ],
      ];
      const checkoutPoints: [string, Record<string, unknown>[]][] = [
        ['before the request', [{ target: 'braintree.sale', kind: 'status', status: 503 }]],
        ['lost request', [{ target: 'braintree.sale', kind: 'timeout', delayMs: 300, afterEffect: false }]],
        ['lost answer', [{ target: 'braintree.sale', kind: 'timeout', delayMs: 300, afterEffect: true }]],
        ['cut body', [{ target: 'braintree.sale', kind: 'cut' }]],
        ['duplicate answer', []],
        [
          'lookup failure',
          [
            { target: 'braintree.sale', kind: 'timeout', delayMs: 300, afterEffect: true },
            { target: 'braintree.search', kind: 'status', status: 503, times: 2 },
          ],
        ],
      ];

      for (const [point, faults] of checkoutPoints) {
        figures.faultsInjected += faults.length;
        const key = newKey();
        const chargesBefore = (await providerRecords()).charges.length;
        for (const fault of faults) await emulatorFault(fault);
        let record = await checkout(buyer, '0.99', key);
        purchases.push(record);
        for (let i = 0; i < 20 && record.success !== true; i++) {
          await new Promise((r) => setTimeout(r, 300));
          record = await checkout(buyer, '0.99', key);
          purchases.push(record);
        }
        // The duplicate: the buyer's replay after success answers the same transaction.
        const replay = await checkout(buyer, '0.99', key);
        purchases.push(replay);
        const charged = (await providerRecords()).charges
          .slice(chargesBefore)
          .filter((c) => c.charged).length;
        const once =
          record.success === true && replay.transactionId === record.transactionId && charged === 1;
        invariant(`checkout, ${point}: charged exactly once`, once, { charged, record, replay });
        figures.faultMatrix.push(`checkout ${point} ${once ? 'once' : 'NOT once'}`);
      }

      for (const [point, faults] of payoutPoints) {
        figures.faultsInjected += faults.length;
        purchases.push(await checkout(buyer, '0.99', newKey()));
        const before = (await paymentsProfile(winner))?.potEarned ?? 0;
        await winRoundWithPass(winner, purchases);
        await waitFor(
          'the winnings to be credited',
          async () => ((await paymentsProfile(winner))?.potEarned ?? 0) > before,
        );
        const payoutsBefore = (await providerRecords()).payouts.length;
        for (const fault of faults) await emulatorFault(fault);
        for (let i = 0; i < 20 && ((await paymentsProfile(winner))?.potEarned ?? 0) > 0; i++) {
          collects.push(await collect(winner));
          if (((await paymentsProfile(winner))?.potEarned ?? 0) > 0)
            await new Promise((r) => setTimeout(r, 300));
        }
        const paid = (await providerRecords()).payouts.slice(payoutsBefore).length;
        const settled = (await paymentsProfile(winner))?.potEarned === 0;
        invariant(`payout, ${point}: paid exactly once`, paid === 1 && settled, { paid, settled });
        figures.faultMatrix.push(`payout ${point} ${paid === 1 && settled ? 'once' : `paid ${paid} times`}`);
      }
      expect(violations()).toEqual([]);
    },
  );

  it('the house pot: one request however often it is asked, paid once on a second admin; a standard user cannot', async () => {
    expect(await setPayoutEmail(admin)).toBe(200);
    await verifyAdmin(admin);
    figures.attacks += 10;
    const stranger = await collect(buyer, '/api/admin/collect');
    invariant('a standard user collecting the house pot is a 403', stranger.status === 403, stranger.status);
    const houseBefore = (await paymentsProfile(admin))?.adminBalance;
    // Signed in just now, so within the reauthentication window: the original client's bodiless collect.
    const fresh = await loginAdmin();
    const asked = await Promise.all(
      Array.from({ length: 6 }, () => call('POST', '/api/admin/collect', { token: fresh.token })),
    );
    invariant(
      'six concurrent house collects are one request waiting for a second admin (202)',
      asked.every((a) => a.status === 202) && new Set(asked.map((a) => a.body?.approval?.id)).size === 1,
      asked.map((a) => `${a.status} ${a.body?.approval?.id ?? a.text.slice(0, 160)}`),
    );
    invariant(
      'nothing is paid before the second admin approves',
      (await paymentsProfile(admin))?.adminBalance === houseBefore,
    );
    const { deputy } = suite();
    const approver = await login(deputy.username, deputy.password);
    const approvals = await Promise.all(
      Array.from({ length: 4 }, () =>
        call('POST', `/api/admin/approvals/${asked[0]!.body.approval.id}/approve`, {
          token: approver.token,
          body: { currentPassword: deputy.password },
          timeoutMs: 20_000,
        }),
      ),
    );
    for (const answer of approvals)
      collects.push({
        user: admin.username,
        status: answer.status,
        ...(answer.body?.payout ? answer.body.payout : { code: answer.body?.code }),
      });
    invariant(
      'one of four concurrent approvals pays; the others find it decided (409)',
      approvals.filter((a) => a.status === 200 && a.body?.payout?.transactionId).length === 1 &&
        approvals.every((a) => a.status === 200 || a.status === 409),
      approvals.map((a) => a.status),
    );
    const house = await paymentsProfile(admin);
    invariant('the house pot is empty after paying out', house?.adminBalance === 0, house);
    expect(violations()).toEqual([]);
  });

  it('a winner with nothing to collect, or without a payout email, gets a 4xx that says why', async () => {
    figures.attacks += 2;
    const nothing = await call('POST', '/api/winners/collect', { token: buyer.token });
    invariant(
      'nothing to collect is a 4xx with a message',
      nothing.status >= 400 &&
        nothing.status < 500 &&
        typeof (nothing.body?.error ?? nothing.body?.message) === 'string',
      nothing.text.slice(0, 160),
    );
    expect(violations()).toEqual([]);
  });
});
