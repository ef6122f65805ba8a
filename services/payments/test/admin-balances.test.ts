// The money beside a page of the admin list (POST /internal/users/balances, auth's call with the admin's
// token): winnings owed, spent on packs and paid out, for the ids asked, in one call.
import { MoneyBalances, SUBJECTS } from '@omc/contracts';
import { eventually, internalCallHeaders } from '@omc/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { winningsAccount } from '../src/ledger/accounts.js';
import { balance } from '../src/ledger/ledger.repo.js';
import { newUserId, startHarness, type Harness } from './harness.js';

describe("the admin list's money", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  const post = (url: string, token: string, payload?: Record<string, unknown>) =>
    h.app.inject({
      method: 'POST',
      url,
      headers: {
        ...(url.startsWith('/internal') ? internalCallHeaders('auth', 'payments') : {}),
        authorization: `Bearer ${token}`,
      },
      ...(payload ? { payload } : {}),
    });
  const balances = async (userIds: unknown, token?: string) =>
    post('/internal/users/balances', token ?? (await h.token({ sub: newUserId(), role: 'admin' })), {
      userIds,
    });

  it('answers winnings owed, spent and paid out per player, leaving out players money never touched', async () => {
    const buyer = newUserId();
    const buyerToken = await h.token({ sub: buyer });
    for (const amount of ['0.99', '4.99']) {
      const bought = await post('/api/payments/checkout', buyerToken, {
        paymentMethodNonce: 'fake-valid-nonce',
        amount,
        idempotencyKey: `bal-${randomUUID()}`,
      });
      expect(bought.json().success).toBe(true);
    }
    const winner = newUserId();
    const win = {
      round: 1,
      winnerUserId: winner,
      winnerUsername: 'winner',
      potCents: 298,
      clicks: 100,
      wonAt: new Date().toISOString(),
    };
    h.game.wins.set(1, win);
    await h.publish(SUBJECTS.roundWon, win);
    await eventually(async () => (await balance(h.deps.db, winningsAccount(winner))) === 298, 'credited');
    const winnerToken = await h.token({ sub: winner });
    // Set and confirmed from the mail, as a new payout address must be.
    expect((await h.setPayoutEmail(winnerToken, 'winner@example.com')).statusCode).toBe(200);
    const nobody = newUserId();

    const response = await balances([buyer, winner, nobody]);
    expect(response.statusCode, response.body).toBe(200);
    expect(MoneyBalances.parse(response.json()).balances).toEqual({
      [buyer]: { potEarned: 0, spent: 5.98, paidOut: 0 },
      [winner]: { potEarned: 2.98, spent: 0, paidOut: 0 },
    });

    expect((await post('/api/winners/collect', winnerToken)).statusCode).toBe(200);
    const after = MoneyBalances.parse((await balances([winner])).json()).balances;
    expect(after).toEqual({ [winner]: { potEarned: 0, spent: 0, paidOut: 2.98 } });
    await h.assertLedgerBalances();
  });

  it('refuses a player, over 100 ids and ids that are not user ids, naming the problem', async () => {
    const player = await h.token({ sub: newUserId() });
    expect((await balances([newUserId()], player)).statusCode).toBe(403);
    const many = await balances(Array.from({ length: 101 }, () => newUserId()));
    expect(many.statusCode).toBe(400);
    expect(many.json().message).toMatch(/100/);
    const bad = await balances(['nope']);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/userIds/);
  });
});
