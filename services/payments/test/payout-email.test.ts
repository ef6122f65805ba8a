// A new payout email is confirmed from the account's email before money goes there: a copy of the token
// that names an address of its own moves nothing; the owner's link works once; a security event of the
// account spends it; both payout addresses are told; bad input is a 400 naming the field.
import { PAYOUT_EMAIL_PENDING, SUBJECTS } from '@omc/contracts';
import { eventually, internalCallHeaders } from '@omc/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { winningsAccount } from '../src/ledger/accounts.js';
import { balance } from '../src/ledger/ledger.repo.js';
import { purgePayoutEmailChanges } from '../src/payouts/payout-email.repo.js';
import { PAYOUT_EMAIL_RETENTION_MS } from '../src/payouts/payout-email.service.js';
import { mintPayoutToken, newUserId, startHarness, type Harness } from './harness.js';

describe('the payout email is confirmed from the account email', () => {
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

  const post = (url: string, token: string | undefined, payload?: unknown) =>
    h.app.inject({
      method: 'POST',
      url,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  const setPaymentMethod = (token: string, body: Record<string, unknown>) =>
    post('/api/winners/setPaymentMethod', token, body);
  const confirm = (body: unknown) => post('/api/winners/confirm-payout-email', undefined, body);
  const profile = async (token: string) =>
    (
      await h.app.inject({ url: '/api/payments/profile', headers: { authorization: `Bearer ${token}` } })
    ).json();
  const lastMailTo = (userId: string) => h.auth.payoutMails.filter((m) => m.userId === userId).at(-1);
  // The link's token as auth's mailer gets it when the confirm mail leaves.
  const linkFor = (userId: string) => mintPayoutToken(h.app, lastMailTo(userId)!.body.requestId);

  /** A winner with a pot of 4.99's share in winnings. */
  async function winner(): Promise<{ userId: string; token: string; potCents: number }> {
    const buyer = await h.token({ sub: newUserId() });
    const bought = await post('/api/payments/checkout', buyer, {
      paymentMethodNonce: 'fake-valid-nonce',
      amount: '4.99',
      idempotencyKey: `fill-${randomUUID()}`,
    });
    expect(bought.json().success).toBe(true);
    const potCents = 249;
    const userId = newUserId();
    round += 1;
    const win = {
      round,
      winnerUserId: userId,
      winnerUsername: 'winner',
      potCents,
      clicks: 100,
      wonAt: new Date().toISOString(),
    };
    h.game.wins.set(round, win);
    await h.publish(SUBJECTS.roundWon, win);
    await eventually(
      async () => (await balance(h.deps.db, winningsAccount(userId))) === potCents,
      'winnings credited',
    );
    return { userId, token: await h.token({ sub: userId }), potCents };
  }

  it('a copy of the token that names a new address moves no money there: the collect is a 409 saying to confirm from the mail', async () => {
    const w = await winner();
    const asked = await setPaymentMethod(w.token, { paypalEmail: 'thief@evil.example' });
    expect(asked.statusCode).toBe(200);
    expect(asked.json().message).toMatch(/check your email/i);
    // Auth was asked to mail the link (to the account's email) and to tell the new address; no earlier one.
    expect(lastMailTo(w.userId)?.body).toMatchObject({
      newPaypalEmail: 'thief@evil.example',
      previousPaypalEmail: null,
      expiresInHours: 24,
    });
    expect((await profile(w.token)).paypalEmail).toBeNull();

    const collect = await post('/api/winners/collect', w.token);
    expect(collect.statusCode).toBe(409);
    expect(collect.json()).toMatchObject({
      code: PAYOUT_EMAIL_PENDING,
      message: expect.stringMatching(/confirm.*link we mailed/i),
      error: expect.stringMatching(/confirm/i),
    });
    expect(await h.emulator.client.payouts()).toEqual([]);
    expect(await balance(h.deps.db, winningsAccount(w.userId))).toBe(w.potCents);
  });

  it("the owner's link confirms once, and the collect then pays that address", async () => {
    const w = await winner();
    expect((await setPaymentMethod(w.token, { paypalEmail: 'owner@paypal.example' })).statusCode).toBe(200);
    const token = await linkFor(w.userId);
    const confirmed = await confirm({ token });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json().message).toMatch(/owner@paypal\.example/);
    expect((await profile(w.token)).paypalEmail).toBe('owner@paypal.example');

    const again = await confirm({ token });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ field: 'token', message: expect.stringMatching(/already used/) });

    const paid = await post('/api/winners/collect', w.token);
    expect(paid.statusCode).toBe(200);
    expect((await h.emulator.client.payouts()).map((p) => p.receiver)).toEqual(['owner@paypal.example']);
  });

  it('a newer address waits for its own link: the old one is told, the collect is a 409 until the owner confirms', async () => {
    const w = await winner();
    expect((await h.setPayoutEmail(w.token, 'first@paypal.example')).statusCode).toBe(200);
    expect((await setPaymentMethod(w.token, { paypalEmail: 'second@paypal.example' })).statusCode).toBe(200);
    expect(lastMailTo(w.userId)?.body).toMatchObject({
      newPaypalEmail: 'second@paypal.example',
      previousPaypalEmail: 'first@paypal.example',
    });
    expect((await profile(w.token)).paypalEmail).toBe('first@paypal.example');
    expect((await post('/api/winners/collect', w.token)).statusCode).toBe(409);
    expect(await h.emulator.client.payouts()).toEqual([]);

    // A third request spends the second's link.
    const second = await linkFor(w.userId);
    expect((await setPaymentMethod(w.token, { paypalEmail: 'third@paypal.example' })).statusCode).toBe(200);
    expect((await confirm({ token: second })).statusCode).toBe(400);
    expect((await confirm({ token: await linkFor(w.userId) })).statusCode).toBe(200);
    expect((await post('/api/winners/collect', w.token)).statusCode).toBe(200);
    expect((await h.emulator.client.payouts()).map((p) => p.receiver)).toEqual(['third@paypal.example']);
  });

  it("a security event of the account (auth's epoch moved) spends the pending link, and the collect no longer waits for it", async () => {
    const w = await winner();
    expect((await h.setPayoutEmail(w.token, 'kept@paypal.example')).statusCode).toBe(200);
    expect((await setPaymentMethod(w.token, { paypalEmail: 'thief@evil.example' })).statusCode).toBe(200);
    const thiefLink = await linkFor(w.userId);
    // The owner resets the password (or ends the sessions): auth raises the account's security epoch.
    h.auth.epochs.set(w.userId, 1);
    const owner = await h.token({ sub: w.userId });
    const refused = await confirm({ token: thiefLink });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      field: 'token',
      message: expect.stringMatching(/security change/),
    });
    expect((await profile(owner)).paypalEmail).toBe('kept@paypal.example');
    // The spent request no longer holds the money back: the confirmed address is paid.
    expect((await post('/api/winners/collect', owner)).statusCode).toBe(200);
    expect((await h.emulator.client.payouts()).map((p) => p.receiver)).toEqual(['kept@paypal.example']);
  });

  it('stores no token until the mail leaves; each mail gets a fresh link that replaces the one before; a closed request gets none', async () => {
    const w = await winner();
    expect((await setPaymentMethod(w.token, { paypalEmail: 'minted@paypal.example' })).statusCode).toBe(200);
    const row = () =>
      h.deps.db
        .selectFrom('payout_email_changes')
        .selectAll()
        .where('user_id', '=', w.userId)
        .executeTakeFirstOrThrow();
    expect((await row()).token_hash).toBeNull();
    const first = await linkFor(w.userId);
    const second = await linkFor(w.userId);
    expect((await row()).token_hash).not.toContain(second);
    expect((await confirm({ token: first })).statusCode).toBe(400);
    expect((await confirm({ token: second })).statusCode).toBe(200);
    const afterConfirm = await h.app.inject({
      method: 'POST',
      url: `/internal/payout-email/${lastMailTo(w.userId)!.body.requestId}/token`,
      headers: internalCallHeaders('auth', 'payments'),
    });
    expect(afterConfirm.statusCode).toBe(410);
    expect(afterConfirm.json().message).toMatch(/no longer be confirmed/);
  });

  it('a suspended or deleted account cannot confirm, and an expired link does nothing', async () => {
    const a = newUserId();
    expect(
      (await setPaymentMethod(await h.token({ sub: a }), { paypalEmail: 'a@paypal.example' })).statusCode,
    ).toBe(200);
    h.auth.suspended.add(a);
    expect((await confirm({ token: await linkFor(a) })).statusCode).toBe(400);

    const b = newUserId();
    expect(
      (await setPaymentMethod(await h.token({ sub: b }), { paypalEmail: 'b@paypal.example' })).statusCode,
    ).toBe(200);
    h.auth.deleted.add(b);
    expect((await confirm({ token: await linkFor(b) })).statusCode).toBe(400);

    const c = newUserId();
    const cToken = await h.token({ sub: c });
    expect((await setPaymentMethod(cToken, { paypalEmail: 'c@paypal.example' })).statusCode).toBe(200);
    const cLink = await linkFor(c);
    await h.deps.db
      .updateTable('payout_email_changes')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('user_id', '=', c)
      .execute();
    const expired = await confirm({ token: cLink });
    expect(expired.statusCode).toBe(400);
    expect(expired.json().message).toMatch(/expired/);
    expect((await profile(cToken)).paypalEmail).toBeNull();
  });

  it('asks for the current password when auth wants it, and stores nothing without it', async () => {
    const w = await winner();
    h.auth.passwords.set(w.userId, 'owner-password');
    const mailsBefore = h.auth.payoutMails.length;
    const without = await setPaymentMethod(w.token, { paypalEmail: 'thief@evil.example' });
    expect(without.statusCode).toBe(400);
    expect(without.json()).toMatchObject({
      field: 'currentPassword',
      message: expect.stringMatching(/currentPassword/),
    });
    const wrong = await setPaymentMethod(w.token, {
      paypalEmail: 'thief@evil.example',
      currentPassword: 'guess',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().field).toBe('currentPassword');
    expect(h.auth.payoutMails.length).toBe(mailsBefore);
    expect(
      await h.deps.db
        .selectFrom('payout_email_changes')
        .select('id')
        .where('user_id', '=', w.userId)
        .execute(),
    ).toEqual([]);
    // Nothing pending: the collect says there is no PayPal email, not that one waits.
    expect((await post('/api/winners/collect', w.token)).json().message).toMatch(/No PayPal email/);

    const right = await setPaymentMethod(w.token, {
      paypalEmail: 'owner@paypal.example',
      currentPassword: 'owner-password',
    });
    expect(right.statusCode).toBe(200);
  });

  it('keeps an address set before confirmation existed: its owner set it, and it is paid', async () => {
    const w = await winner();
    await h.deps.db
      .insertInto('payees')
      .values({ user_id: w.userId, paypal_email: 'legacy@paypal.example' })
      .execute();
    expect((await profile(w.token)).paypalEmail).toBe('legacy@paypal.example');
    expect((await post('/api/winners/collect', w.token)).statusCode).toBe(200);
    expect((await h.emulator.client.payouts()).map((p) => p.receiver)).toEqual(['legacy@paypal.example']);
  });

  it('changes nothing when auth cannot be asked to mail the link (503)', async () => {
    const userId = newUserId();
    const token = await h.token({ sub: userId });
    h.auth.down = true;
    try {
      const answer = await setPaymentMethod(token, { paypalEmail: 'x@paypal.example' });
      expect(answer.statusCode).toBe(503);
    } finally {
      h.auth.down = false;
    }
    expect(
      await h.deps.db.selectFrom('payout_email_changes').select('id').where('user_id', '=', userId).execute(),
    ).toEqual([]);
  });

  it('answers bad input with a 400 naming the field', async () => {
    const token = await h.token({ sub: newUserId() });
    const cases: [string, unknown, string][] = [
      ['/api/winners/confirm-payout-email', {}, 'token'],
      ['/api/winners/confirm-payout-email', { token: '' }, 'token'],
      ['/api/winners/confirm-payout-email', { token: 42 }, 'token'],
      ['/api/winners/confirm-payout-email', { token: 'x'.repeat(600) }, 'token'],
      ['/api/winners/confirm-payout-email', { token: 'no-such-link-token' }, 'token'],
      ['/api/winners/setPaymentMethod', {}, 'paypalEmail'],
      [
        '/api/winners/setPaymentMethod',
        { paypalEmail: 'ok@paypal.example', currentPassword: 5 },
        'currentPassword',
      ],
      [
        '/api/winners/setPaymentMethod',
        { paypalEmail: 'ok@paypal.example', currentPassword: '' },
        'currentPassword',
      ],
    ];
    for (const [url, body, field] of cases) {
      const answer = await post(url, url.endsWith('setPaymentMethod') ? token : undefined, body);
      expect(answer.statusCode, `${url} ${JSON.stringify(body)}`).toBe(400);
      expect(answer.json(), `${url} ${JSON.stringify(body)}`).toMatchObject({
        field,
        message: expect.stringContaining(field === 'token' && url.endsWith('email') ? '' : field),
      });
    }
  });

  it('deletes requests a week after they were confirmed, cancelled or expired, and keeps the rest', async () => {
    const userId = newUserId();
    const day = 24 * 3_600_000;
    const now = Date.now();
    const row = (name: string, fields: { confirmed?: number; cancelled?: number; expires: number }) => ({
      id: randomUUID(),
      user_id: userId,
      paypal_email: `${name}@paypal.example`,
      token_hash: `hash-${randomUUID()}`,
      security_epoch: 0,
      created_at: new Date(now - 30 * day),
      expires_at: new Date(now + fields.expires),
      confirmed_at: fields.confirmed === undefined ? null : new Date(now + fields.confirmed),
      cancelled_at: fields.cancelled === undefined ? null : new Date(now + fields.cancelled),
    });
    await h.deps.db
      .insertInto('payout_email_changes')
      .values([
        row('old-confirmed', { confirmed: -8 * day, expires: 20 * day }),
        row('old-cancelled', { cancelled: -9 * day, expires: -8 * day }),
        row('old-expired', { expires: -8 * day }),
        row('recent-confirmed', { confirmed: -1 * day, expires: 20 * day }),
        row('recently-expired', { expires: -1 * day }),
        row('open', { expires: day }),
      ])
      .execute();
    await purgePayoutEmailChanges(h.deps.db, new Date(now), PAYOUT_EMAIL_RETENTION_MS);
    const left = await h.deps.db
      .selectFrom('payout_email_changes')
      .select('paypal_email')
      .where('user_id', '=', userId)
      .orderBy('paypal_email')
      .execute();
    expect(left.map((r) => r.paypal_email)).toEqual([
      'open@paypal.example',
      'recent-confirmed@paypal.example',
      'recently-expired@paypal.example',
    ]);
  });
});
