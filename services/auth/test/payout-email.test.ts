// Auth's part of the payout email's confirmation (payments keeps the address and the token's hash): the
// current password or a recent sign-in is checked, the link goes to the account's email and a notice to
// both payout addresses; every security event raises the epoch that spends the link; the epoch is read
// without a player's token, since the link is opened from a mail.
import {
  ErrorBody,
  INTERNAL_PAYOUT_EMAIL_MAIL_PATH,
  InternalAccount,
  InternalAccountSecurity,
  internalAccountSecurityPath,
} from '@omc/contracts';
import { eventually } from '@omc/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, freshIp, fromPayments, register, startAuth, type AuthHarness } from './support.js';

describe('the payout email mail, for payments', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth();
  });
  afterAll(async () => {
    await h?.close();
  });

  const ask = (token: string, body: Record<string, unknown>) =>
    h.app.inject({
      method: 'POST',
      url: INTERNAL_PAYOUT_EMAIL_MAIL_PATH,
      headers: fromPayments(token),
      payload: {
        requestId: randomUUID(),
        newPaypalEmail: 'new@paypal.example',
        previousPaypalEmail: null,
        expiresInHours: 24,
        ip: freshIp(),
        ...body,
      },
    });
  const epochOf = async (userId: string) =>
    InternalAccountSecurity.parse(
      (await h.app.inject({ url: internalAccountSecurityPath(userId), headers: fromPayments() })).json(),
    ).securityEpoch;

  it('mails the confirm link to the account email and a notice to the previous and the new payout addresses', async () => {
    const owner = await register(h.app);
    const requestId = randomUUID();
    const answer = await ask(owner.token, {
      requestId,
      newPaypalEmail: 'fresh@paypal.example',
      previousPaypalEmail: 'old@paypal.example',
    });
    expect(answer.statusCode).toBe(200);
    const link = await h.mail.waitFor(owner.email, (m) =>
      Boolean(m.link?.includes('/confirm-payout-email?')),
    );
    // Minted by payments as the mail left; nothing of it was queued.
    expect(new URL(link.link!).searchParams.get('token')).toBe(`payout-link-${requestId}`);
    // The new address is written defanged, never as a link.
    expect(link.text).toContain('fresh@paypal[.]example');
    expect(link.text).toMatch(/24/);
    const toOld = await h.mail.waitFor('old@paypal.example');
    const toNew = await h.mail.waitFor('fresh@paypal.example');
    for (const notice of [toOld, toNew]) {
      expect(notice.link).toBeUndefined();
      expect(notice.text).toContain('fresh@paypal[.]example');
      expect(notice.text).not.toContain(`payout-link-${requestId}`);
    }
  });

  it('is under the quota of every user-triggered mail: past it, 429 with Retry-After naming the limit, and no mail', async () => {
    const owner = await register(h.app);
    const answers = [];
    for (let i = 0; i < 15; i++)
      answers.push(await ask(owner.token, { newPaypalEmail: `payee${i}-${owner.id}@paypal.example` }));
    const accepted = answers.filter((a) => a.statusCode === 200);
    const refused = answers.filter((a) => a.statusCode === 429);
    expect(accepted.length + refused.length).toBe(15);
    // The account's address gets every confirm link: its quota (MAIL_MAX_PER_ADDRESS, 6) is reached first,
    // the sign-up's verification mail being the first of the 6.
    expect(accepted).toHaveLength(5);
    expect(refused[0]!.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(refused[0]!.json().message).toMatch(/at most 6 in an hour/);
    await eventually(
      () => h.mail.to(owner.email).filter((m) => m.link?.includes('/confirm-payout-email')).length === 5,
      'the accepted confirm mails',
    );
    for (let i = 5; i < 15; i++) expect(h.mail.to(`payee${i}-${owner.id}@paypal.example`)).toEqual([]);
  });

  it('queues no token, and drops the confirm mail when payments says the request may no longer be confirmed', async () => {
    const owner = await register(h.app);
    const requestId = randomUUID();
    h.payments.closedPayoutRequests.add(requestId);
    expect((await ask(owner.token, { requestId, newPaypalEmail: 'late@paypal.example' })).statusCode).toBe(
      200,
    );
    await h.mail.waitFor('late@paypal.example');
    const confirmMail = await eventually(async () => {
      const row = await h.deps.db
        .selectFrom('mail_queue')
        .selectAll()
        .where('id', '=', `payout-email:${requestId}:0`)
        .executeTakeFirst();
      return row?.dropped_at ? row : undefined;
    }, 'the confirm mail is dropped');
    expect(confirmMail?.sent_at).toBeNull();
    expect(JSON.stringify(confirmMail)).not.toContain('payout-link-');
    expect(h.mail.to(owner.email).filter((m) => m.link?.includes('/confirm-payout-email'))).toEqual([]);
  });

  it('asks for the current password when the session did not sign in within the reauth window', async () => {
    const slow = await startAuth({ REAUTH_WINDOW_SECONDS: '0' });
    try {
      const owner = await register(slow.app);
      const call = (body: Record<string, unknown>) =>
        slow.app.inject({
          method: 'POST',
          url: INTERNAL_PAYOUT_EMAIL_MAIL_PATH,
          headers: fromPayments(owner.token),
          payload: {
            requestId: randomUUID(),
            newPaypalEmail: 'thief@evil.example',
            previousPaypalEmail: null,
            expiresInHours: 24,
            ip: freshIp(),
            ...body,
          },
        });
      const without = await call({});
      expect(without.statusCode).toBe(400);
      expect(ErrorBody.parse(without.json())).toMatchObject({ field: 'currentPassword' });
      const wrong = await call({ currentPassword: 'not-it' });
      expect(wrong.statusCode).toBe(400);
      expect(ErrorBody.parse(wrong.json()).field).toBe('currentPassword');
      expect(slow.mail.to('thief@evil.example')).toEqual([]);
      expect((await call({ currentPassword: owner.password })).statusCode).toBe(200);
      await slow.mail.waitFor('thief@evil.example');
    } finally {
      await slow.close();
    }
  });

  it('raises the security epoch on every security event, and says it without a token (404 for no account)', async () => {
    const owner = await register(h.app);
    const account = InternalAccount.parse(
      (await h.app.inject({ url: '/internal/account', headers: fromPayments(owner.token) })).json(),
    );
    expect(account.securityEpoch).toBe(0);
    expect(await epochOf(owner.id)).toBe(0);
    // Sign out everywhere else: a security event.
    const ended = await h.app.inject({
      method: 'DELETE',
      url: '/api/user/sessions',
      headers: { ...bearer(owner.token), 'x-forwarded-for': freshIp() },
    });
    expect(ended.statusCode).toBe(200);
    expect(await epochOf(owner.id)).toBe(1);
    // A password change (which keeps the security version) raises it too.
    const token = ended.json().token ?? owner.token;
    const changed = await h.app.inject({
      method: 'PUT',
      url: '/api/user/change-password',
      headers: { ...bearer(token), 'x-forwarded-for': freshIp() },
      payload: { currentPassword: owner.password, newPassword: 'another-password-1' },
    });
    expect(changed.statusCode).toBe(200);
    expect(await epochOf(owner.id)).toBe(2);

    const missing = await h.app.inject({
      url: internalAccountSecurityPath(randomUUID()),
      headers: fromPayments(),
    });
    expect(missing.statusCode).toBe(404);
    const bad = await h.app.inject({
      url: internalAccountSecurityPath('not-a-uuid'),
      headers: fromPayments(),
    });
    expect(bad.statusCode).toBe(400);
  });
});
