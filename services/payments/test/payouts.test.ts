// Winnings and the house pot: credited from game's round won events (once), paid to PayPal through the
// emulator (once), with the balance zeroed only by the payout that paid it.
import { EMAIL_NOT_VERIFIED, SUBJECTS, formatEuroAmount } from '@omc/contracts';
import { eventually } from '@omc/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACCOUNTS, winningsAccount } from '../src/ledger/accounts.js';
import { balance } from '../src/ledger/ledger.repo.js';
import { newUserId, payHouse, startHarness, type Harness } from './harness.js';
import { internalCallHeaders } from '@omc/testkit';

describe('winnings and payouts', () => {
  let h: Harness;
  let round = 0;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  beforeEach(async () => {
    await h.emulator.client.reset();
  });
  afterEach(async () => h.assertLedgerBalances());

  const post = (url: string, token: string, payload?: Record<string, unknown>) =>
    h.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(payload ? { payload } : {}),
    });
  const profile = async (token: string) =>
    (
      await h.app.inject({ url: '/api/payments/profile', headers: { authorization: `Bearer ${token}` } })
    ).json();

  /** A buyer fills the pot; returns the pot share in cents. */
  async function fillPot(packs: string[]): Promise<number> {
    const buyer = await h.token({ sub: newUserId() });
    let pot = 0;
    for (const amount of packs) {
      const response = await post('/api/payments/checkout', buyer, {
        paymentMethodNonce: 'fake-valid-nonce',
        amount,
        idempotencyKey: `fill-${randomUUID()}`,
      });
      expect(response.json().success).toBe(true);
      pot += Math.floor((Math.round(Number(amount) * 100) * 50) / 100);
    }
    return pot;
  }

  /** game.round.won.v1 as the game publishes it; returns the event. */
  async function winRound(winnerUserId: string, potCents: number, id?: string, roundNumber = ++round) {
    const win = {
      round: roundNumber,
      winnerUserId,
      winnerUsername: 'winner',
      potCents,
      clicks: 100,
      wonAt: new Date().toISOString(),
    };
    // The game records the win before its event goes out; payments credits what the record says.
    if (!h.game.wins.has(roundNumber)) h.game.wins.set(roundNumber, win);
    return h.publish(SUBJECTS.roundWon, win, id);
  }

  async function winner(potPacks = ['9.99']): Promise<{ userId: string; token: string; potCents: number }> {
    const potCents = await fillPot(potPacks);
    const userId = newUserId();
    await winRound(userId, potCents);
    await eventually(
      async () => (await balance(h.deps.db, winningsAccount(userId))) === potCents,
      'winnings credited',
    );
    return { userId, token: await h.token({ sub: userId }), potCents };
  }

  it('credits a round won event delivered twice only once', async () => {
    const potCents = await fillPot(['4.99', '0.99']);
    const userId = newUserId();
    const event = await winRound(userId, potCents);
    // The same event again (JetStream would drop it inside its window: publish it as a redelivery past it).
    await h.nc
      .jetstream()
      .publish(SUBJECTS.roundWon, JSON.stringify(event), { msgID: `${event.id}-redelivery` });
    // And the same round under another event id.
    await winRound(userId, potCents, undefined, round);
    await eventually(
      async () =>
        (
          await h.deps.db
            .selectFrom('processed_events')
            .select('id')
            .where('subject', '=', SUBJECTS.roundWon)
            .execute()
        ).length >= 2,
      'both deliveries handled',
    );
    await eventually(
      async () => (await balance(h.deps.db, winningsAccount(userId))) === potCents,
      'winnings credited',
    );
    expect(await balance(h.deps.db, winningsAccount(userId))).toBe(potCents);
    expect(await balance(h.deps.db, ACCOUNTS.roundPot)).toBe(0);
    const me = await profile(await h.token({ sub: userId }));
    expect(me).toEqual({ potEarned: potCents / 100, paypalEmail: null, adminBalance: null });
  });

  it('validates the PayPal email and refuses to collect without one', async () => {
    const w = await winner();
    const bad = await h.setPayoutEmail(w.token, 'not-an-email');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ field: 'paypalEmail', error: expect.any(String) });
    const noEmail = await post('/api/winners/collect', w.token);
    expect(noEmail.statusCode).toBe(409);
    expect(noEmail.json()).toMatchObject({
      message: expect.stringMatching(/No PayPal email/),
      error: expect.stringMatching(/No PayPal email/),
    });
    expect(await h.emulator.client.payouts()).toHaveLength(0);
    expect(await balance(h.deps.db, winningsAccount(w.userId))).toBe(w.potCents);
  });

  it('refuses to collect a zero balance', async () => {
    const token = await h.token({ sub: newUserId() });
    await h.setPayoutEmail(token, 'nobody@example.com');
    const response = await post('/api/winners/collect', token);
    expect(response.statusCode).toBe(409);
    expect(response.json().error).toMatch(/Nothing to collect/);
  });

  it('pays the whole balance once when 10 collects arrive at once, and zeroes it', async () => {
    const w = await winner(['9.99', '4.99']);
    expect((await h.setPayoutEmail(w.token, 'winner@example.com')).statusCode).toBe(200);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => post('/api/winners/collect', w.token)),
    );
    const paid = responses.filter((r) => r.statusCode === 200);
    expect(paid).toHaveLength(1);
    expect(responses.filter((r) => r.statusCode === 409)).toHaveLength(9);
    const payouts = await h.emulator.client.payouts();
    expect(payouts).toEqual([
      expect.objectContaining({
        receiver: 'winner@example.com',
        amountCents: w.potCents,
        amount: { value: formatEuroAmount(w.potCents), currency: 'EUR' },
      }),
    ]);
    expect(paid[0]!.json()).toMatchObject({ transactionId: payouts[0]!.payoutBatchId });
    expect(await profile(w.token)).toMatchObject({ potEarned: 0, paypalEmail: 'winner@example.com' });
    await eventually(
      () =>
        h.published.some(
          (e) => e.subject === SUBJECTS.payoutCompleted && (e.data as { userId: string }).userId === w.userId,
        ),
      'payout completed event',
    );
  });

  it('pays once with the same batch id when PayPal answers 503 three times, then succeeds', async () => {
    const w = await winner();
    await h.setPayoutEmail(w.token, 'retry@example.com');
    await h.emulator.client.fault({ target: 'paypal.payouts', kind: 'status', status: 503, times: 3 });
    const response = await post('/api/winners/collect', w.token);
    expect(response.statusCode).toBe(200);
    const payouts = await h.emulator.client.payouts();
    expect(payouts).toHaveLength(1);
    const attempts = (await h.emulator.client.calls()).filter((c) => c.target === 'paypal.payouts');
    expect(attempts).toHaveLength(4);
    const keys = new Set(attempts.map((c) => c.key).filter(Boolean));
    expect([...keys]).toEqual([payouts[0]!.senderBatchId]);
    expect(await balance(h.deps.db, winningsAccount(w.userId))).toBe(0);
  });

  it('keeps the balance when PayPal stays down, and a later collect pays once with the same batch id', async () => {
    const w = await winner();
    await h.setPayoutEmail(w.token, 'later@example.com');
    await h.emulator.client.fault({ target: 'paypal.payouts', kind: 'status', status: 503, times: 5 });
    const down = await post('/api/winners/collect', w.token);
    expect(down.statusCode).toBe(502);
    expect(down.json()).toMatchObject({
      message: expect.stringMatching(/balance is intact/),
      error: expect.stringMatching(/balance is intact/),
    });
    expect(await balance(h.deps.db, winningsAccount(w.userId))).toBe(w.potCents);
    expect(await profile(w.token)).toMatchObject({ potEarned: w.potCents / 100 });
    const again = await post('/api/winners/collect', w.token);
    expect(again.statusCode).toBe(200);
    const payouts = await h.emulator.client.payouts();
    expect(payouts).toHaveLength(1);
    const pending = await h.deps.db
      .selectFrom('payouts')
      .selectAll()
      .where('user_id', '=', w.userId)
      .execute();
    expect(pending.map((p) => p.id)).toEqual([payouts[0]!.senderBatchId]);
    expect(await balance(h.deps.db, winningsAccount(w.userId))).toBe(0);
  });

  it('treats a payout whose answer was lost as paid, when PayPal reports the batch id as a duplicate', async () => {
    const w = await winner();
    await h.setPayoutEmail(w.token, 'dup@example.com');
    await h.emulator.client.fault({ target: 'paypal.payouts', kind: 'duplicate' });
    const response = await post('/api/winners/collect', w.token);
    expect(response.statusCode).toBe(200);
    const payouts = await h.emulator.client.payouts();
    expect(payouts).toHaveLength(1);
    expect(response.json().transactionId).toBe(payouts[0]!.payoutBatchId);
    expect(await balance(h.deps.db, winningsAccount(w.userId))).toBe(0);
  });

  it('finishes a payout whose call timed out after paying, without paying twice', async () => {
    const w = await winner();
    await h.setPayoutEmail(w.token, 'slow@example.com');
    await h.emulator.client.fault({
      target: 'paypal.payouts',
      kind: 'timeout',
      delayMs: 2000,
      afterEffect: true,
    });
    const response = await post('/api/winners/collect', w.token);
    expect(response.statusCode).toBe(200);
    expect(await h.emulator.client.payouts()).toHaveLength(1);
    expect(await balance(h.deps.db, winningsAccount(w.userId))).toBe(0);
  });

  it('completes a payout that PayPal made just before a crash, once, when reconciliation resumes it', async () => {
    const w = await winner();
    // The crash: the payout row is pending and PayPal has paid its sender_batch_id, but nothing was recorded.
    const payoutId = randomUUID();
    await h.deps.db
      .insertInto('payouts')
      .values({
        id: payoutId,
        user_id: w.userId,
        kind: 'winnings',
        account_id: winningsAccount(w.userId),
        amount_cents: w.potCents,
        paypal_email: 'crash@example.com',
        status: 'pending',
        attempts: 1,
      })
      .execute();
    const paid = await h.deps.payouts.payout({
      senderBatchId: payoutId,
      receiver: 'crash@example.com',
      amountCents: w.potCents,
      currency: 'EUR',
      note: 'test',
    });
    expect(paid.kind).toBe('paid');
    expect(await h.app.payments.payouts.reconcilePending()).toBe(1);
    expect(await h.app.payments.payouts.reconcilePending()).toBe(0);
    expect(await h.emulator.client.payouts()).toHaveLength(1);
    expect(await balance(h.deps.db, winningsAccount(w.userId))).toBe(0);
    const row = await h.deps.db
      .selectFrom('payouts')
      .selectAll()
      .where('id', '=', payoutId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      status: 'completed',
      provider_batch_id: (await h.emulator.client.payouts())[0]!.payoutBatchId,
    });
  });

  describe('exactly once, whatever fails at any step of a payout', () => {
    type Injection = Parameters<Harness['emulator']['client']['fault']>[0];
    const matrix: [string, Injection[]][] = [
      [
        'before the request (OAuth down)',
        [{ target: 'paypal.oauth', kind: 'status', status: 503, times: 2 }],
      ],
      ['lost request', [{ target: 'paypal.payouts', kind: 'timeout', delayMs: 1200, afterEffect: false }]],
      ['lost answer', [{ target: 'paypal.payouts', kind: 'timeout', delayMs: 1200, afterEffect: true }]],
      ['cut body after 201', [{ target: 'paypal.payouts', kind: 'cut' }]],
      ['duplicate answer', [{ target: 'paypal.payouts', kind: 'duplicate' }]],
      [
        'lookup failure after a duplicate (no answer)',
        [
          { target: 'paypal.payouts', kind: 'duplicate' },
          { target: 'paypal.getBatch', kind: 'timeout', delayMs: 1200, afterEffect: false, times: 5 },
        ],
      ],
      [
        'lookup failure after a duplicate (5xx)',
        [
          { target: 'paypal.payouts', kind: 'duplicate' },
          { target: 'paypal.getBatch', kind: 'status', status: 503, times: 5 },
        ],
      ],
    ];

    it.each(matrix)('%s: paid once, the balance zero only once paid', async (_point, injections) => {
      const w = await winner();
      await h.setPayoutEmail(w.token, 'matrix@example.com');
      for (const injection of injections) await h.emulator.client.fault(injection);
      const first = await post('/api/winners/collect', w.token);
      expect([200, 409, 502]).toContain(first.statusCode);
      if (first.statusCode !== 200) {
        // Not known to be paid: the money stays reserved, never released on a guess.
        expect(await balance(h.deps.db, winningsAccount(w.userId))).toBe(w.potCents);
      }
      // The player collects again (and the reconciler runs) until the payout is settled.
      for (let i = 0; i < 5 && (await balance(h.deps.db, winningsAccount(w.userId))) > 0; i++) {
        await h.app.payments.payouts.reconcilePending();
        const again = await post('/api/winners/collect', w.token);
        expect([200, 409, 502]).toContain(again.statusCode);
      }
      expect(await balance(h.deps.db, winningsAccount(w.userId))).toBe(0);
      const payouts = await h.emulator.client.payouts();
      expect(payouts).toHaveLength(1);
      expect(payouts[0]!.amountCents).toBe(w.potCents);
      // Nothing more to pay, however often the player asks.
      expect((await post('/api/winners/collect', w.token)).statusCode).toBe(409);
      expect(await h.emulator.client.payouts()).toHaveLength(1);
    });
  });

  it('pays the house pot only when auth asks, after two admins agreed, and only to an admin', async () => {
    const houseBefore = await balance(h.deps.db, ACCOUNTS.house);
    await fillPot(['1.99']);
    const house = await balance(h.deps.db, ACCOUNTS.house);
    expect(house).toBe(houseBefore + (199 - 99));
    const adminId = newUserId();
    const adminToken = await h.token({ sub: adminId, role: 'admin' });
    await h.publish(SUBJECTS.userRegistered, {
      userId: adminId,
      username: 'boss',
      email: 'boss@example.com',
      role: 'admin',
      preferredLanguage: 'es',
    });
    const standard = await h.token({ sub: newUserId(), role: 'standard' });
    expect((await profile(standard)).adminBalance).toBeNull();
    await eventually(
      async () => (await profile(adminToken)).adminBalance === house / 100,
      'admin sees the house balance',
    );
    await h.setPayoutEmail(adminToken, 'boss@example.com');

    // No public route pays the house here any more: one admin's token alone moves nothing.
    expect((await post('/api/admin/collect', adminToken)).statusCode).toBe(404);
    // Only auth's credential is taken, and only for an admin.
    expect((await payHouse(h.app, adminId, {}, internalCallHeaders('game', 'payments'))).statusCode).toBe(
      403,
    );
    expect((await payHouse(h.app, adminId, { role: 'standard' })).statusCode).toBe(403);
    expect(await h.emulator.client.payouts()).toHaveLength(0);

    const collected = await payHouse(h.app, adminId);
    expect(collected.statusCode).toBe(200);
    expect(collected.json().amount).toBe(house / 100);
    expect((await h.emulator.client.payouts()).map((p) => p.amountCents)).toEqual([house]);
    expect((await profile(adminToken)).adminBalance).toBe(0);
    // Auth records the payout in its audit log with the approval; payments does not call back.
    expect(h.auth.audited).toEqual([]);
    // Nothing left: a second approval pays nothing.
    expect((await payHouse(h.app, adminId)).statusCode).toBe(409);
  });

  describe('money paths ask auth, the source of truth, not the token or a late event', () => {
    it('refuses a deleted account at once on every money path, though its token still lives', async () => {
      const w = await winner();
      expect((await h.setPayoutEmail(w.token, 'gone@example.com')).statusCode).toBe(200);
      // Auth deleted the account a moment ago; payments has not heard the event yet.
      h.auth.deleted.add(w.userId);
      for (const [url, body] of [
        ['/api/winners/setPaymentMethod', { paypalEmail: 'thief@example.com' }],
        ['/api/winners/collect', undefined],
        [
          '/api/payments/checkout',
          { paymentMethodNonce: 'fake-valid-nonce', amount: '0.99', idempotencyKey: `gone-${randomUUID()}` },
        ],
      ] as const) {
        const answer = await post(url, w.token, body);
        expect(answer.statusCode, url).toBe(401);
        expect(answer.json().message, url).toMatch(/no longer exists/);
      }
      expect(await h.emulator.client.payouts()).toHaveLength(0);
      expect(await balance(h.deps.db, winningsAccount(w.userId))).toBe(w.potCents);
    });

    it('refuses a token whose session auth ended (a reset, an ended session) on every money path, with auth reason', async () => {
      const w = await winner();
      // The owner reset the password: the thief's copy of the token still verifies, auth says it ended.
      h.auth.ended.add(w.userId);
      for (const [url, body] of [
        ['/api/winners/setPaymentMethod', { paypalEmail: 'thief@example.com' }],
        ['/api/winners/collect', undefined],
        [
          '/api/payments/checkout',
          { paymentMethodNonce: 'fake-valid-nonce', amount: '0.99', idempotencyKey: `ended-${randomUUID()}` },
        ],
      ] as const) {
        const answer = await post(url, w.token, body);
        expect(answer.statusCode, url).toBe(401);
        expect(answer.json().message, url).toBe('This session has ended; please sign in again');
      }
      expect(await h.emulator.client.payouts()).toHaveLength(0);
      expect(await balance(h.deps.db, winningsAccount(w.userId))).toBe(w.potCents);
    });

    it("shows the admin balance by auth's role at once, and by its own record while auth is away", async () => {
      const userId = newUserId();
      const token = await h.token({ sub: userId, role: 'standard' });
      await h.publish(SUBJECTS.userRegistered, {
        userId,
        username: 'riser',
        email: 'riser@example.com',
        role: 'standard',
        preferredLanguage: 'es',
      });
      await eventually(
        async () =>
          (
            await h.app.inject({
              url: '/api/payments/profile',
              headers: { authorization: `Bearer ${token}` },
            })
          ).statusCode === 200,
        'a profile',
      );
      // Promoted a moment ago: the event has not arrived, the token still says standard.
      h.auth.roles.set(userId, 'admin');
      expect((await profile(token)).adminBalance).not.toBeNull();
      h.auth.roles.set(userId, 'standard');
      expect((await profile(token)).adminBalance).toBeNull();
      // Auth away: the profile still answers, by the role payments has on record.
      h.auth.down = true;
      try {
        const answer = await h.app.inject({
          url: '/api/payments/profile',
          headers: { authorization: `Bearer ${token}` },
        });
        expect(answer.statusCode).toBe(200);
        expect(answer.json().adminBalance).toBeNull();
      } finally {
        h.auth.down = false;
      }
      h.auth.deleted.add(userId);
      const gone = await h.app.inject({
        url: '/api/payments/profile',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(gone.statusCode).toBe(401);
    });

    it('refuses to collect winnings until the account email is verified, moving nothing, then pays', async () => {
      const w = await winner();
      expect((await h.setPayoutEmail(w.token, 'fresh@example.com')).statusCode).toBe(200);
      h.auth.unverified.add(w.userId);
      const refused = await post('/api/winners/collect', w.token);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe(EMAIL_NOT_VERIFIED);
      expect(refused.json().message).toMatch(/verify your account email/i);
      expect(refused.json().error).toBe(refused.json().message);
      expect(await h.emulator.client.payouts()).toHaveLength(0);
      expect(
        await h.deps.db.selectFrom('payouts').select('id').where('user_id', '=', w.userId).execute(),
      ).toEqual([]);
      expect(await balance(h.deps.db, winningsAccount(w.userId))).toBe(w.potCents);
      expect((await profile(w.token)).potEarned).toBe(w.potCents / 100);

      // Verified through auth: the same token now collects.
      h.auth.unverified.delete(w.userId);
      const paid = await post('/api/winners/collect', w.token);
      expect(paid.statusCode).toBe(200);
      expect(paid.json().amount).toBe(w.potCents / 100);
      expect((await h.emulator.client.payouts()).map((p) => p.amountCents)).toEqual([w.potCents]);
      expect(await balance(h.deps.db, winningsAccount(w.userId))).toBe(0);
    });

    it('refuses a collect when auth does not say the email is verified', async () => {
      const w = await winner();
      await h.setPayoutEmail(w.token, 'older@example.com');
      h.auth.silent.add(w.userId);
      const refused = await post('/api/winners/collect', w.token);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe(EMAIL_NOT_VERIFIED);
      expect(await h.emulator.client.payouts()).toHaveLength(0);
      expect(await balance(h.deps.db, winningsAccount(w.userId))).toBe(w.potCents);
    });

    it('refuses the house pot to an admin whose email is not verified', async () => {
      await fillPot(['0.99']);
      const adminId = newUserId();
      const adminToken = await h.token({ sub: adminId, role: 'admin' });
      await h.publish(SUBJECTS.userRegistered, {
        userId: adminId,
        username: 'unsure',
        email: 'unsure@example.com',
        role: 'admin',
        preferredLanguage: 'es',
      });
      await eventually(
        async () => (await profile(adminToken)).adminBalance !== null,
        'payments to know the admin',
      );
      await h.setPayoutEmail(adminToken, 'unsure@example.com');
      const house = await balance(h.deps.db, ACCOUNTS.house);
      const refused = await payHouse(h.app, adminId, { emailVerified: false });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe(EMAIL_NOT_VERIFIED);
      expect(await h.emulator.client.payouts()).toHaveLength(0);
      expect(await balance(h.deps.db, ACCOUNTS.house)).toBe(house);
      expect((await payHouse(h.app, adminId)).statusCode).toBe(200);
      expect(await balance(h.deps.db, ACCOUNTS.house)).toBe(0);
    });

    it('moves no money when auth cannot be asked, and says so', async () => {
      const w = await winner();
      await h.setPayoutEmail(w.token, 'blind@example.com');
      h.auth.down = true;
      try {
        const answer = await post('/api/winners/collect', w.token);
        expect(answer.statusCode).toBe(503);
        expect(answer.json().message).toMatch(/nothing was moved/i);
      } finally {
        h.auth.down = false;
      }
      expect(await h.emulator.client.payouts()).toHaveLength(0);
    });
  });

  it('applies role events in order: a promote redelivered after a demote leaves the user demoted', async () => {
    const userId = newUserId();
    const token = await h.token({ sub: userId, role: 'admin' });
    await h.publish(SUBJECTS.userRegistered, {
      userId,
      username: 'order',
      email: 'order@example.com',
      role: 'standard',
      preferredLanguage: 'es',
    });
    const promote = {
      id: randomUUID(),
      subject: SUBJECTS.userRoleChanged,
      occurredAt: new Date(Date.now() - 60_000).toISOString(),
      data: { userId, role: 'admin', previousRole: 'standard' },
    };
    const demote = {
      id: randomUUID(),
      subject: SUBJECTS.userRoleChanged,
      occurredAt: new Date(Date.now() - 30_000).toISOString(),
      data: { userId, role: 'standard', previousRole: 'admin' },
    };
    const js = h.nc.jetstream();
    await js.publish(promote.subject, JSON.stringify(promote), { msgID: promote.id });
    await js.publish(demote.subject, JSON.stringify(demote), { msgID: demote.id });
    // The promote again, as a late redelivery under another message id.
    const late = { ...promote, id: randomUUID() };
    await js.publish(late.subject, JSON.stringify(late), { msgID: late.id });
    const marker = await h.publish(SUBJECTS.userRenamed, { userId, username: 'order_done' });
    await eventually(
      async () =>
        (await h.deps.db.selectFrom('users').select('username').where('id', '=', userId).executeTakeFirst())
          ?.username === 'order_done',
      `the events up to ${marker.id} applied`,
    );
    const row = await h.deps.db
      .selectFrom('users')
      .select('role')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(row.role).toBe('standard');
    // The profile asks auth first; with auth away it shows the role on record.
    h.auth.down = true;
    try {
      expect((await profile(token)).adminBalance).toBeNull();
    } finally {
      h.auth.down = false;
    }
  });
});
