// Taking the account back from someone who holds a copy of the owner's access token: every security event
// (reset, undo, "sign out everywhere"; a password change or "end session" for the other sessions) ends the
// copy at once on account routes and on /internal/account (what payments asks on money paths), cancels the
// pending email change the thief asked for and spends the reset links; an email change needs the current
// password or a recent sign-in; addresses compare in one canonical form.
import {
  ErrorBody,
  InternalAccount,
  MessageWithTokenResponse,
  ProfileResponse,
  SUBJECTS,
} from '@omc/contracts';
import { eventually } from '@omc/testkit';
import type { SunkMail } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMail } from '../src/mail/templates.js';
import {
  bearer,
  fromPayments,
  freshIp,
  login,
  loginToken,
  newUser,
  refreshCookieOf,
  register,
  startAuth,
  type AuthHarness,
} from './support.js';

const isConfirm = (m: SunkMail) => Boolean(m.link?.includes('/confirm-email?'));
const isUndo = (m: SunkMail) => Boolean(m.link?.includes('/undo-email-change?'));
const isReset = (m: SunkMail) => Boolean(m.link?.includes('/reset-password?'));
const tokenOf = (m: SunkMail) => new URL(m.link!).searchParams.get('token')!;

describe('recovery beats a stolen token', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth({ EMAIL_CHANGE_MAX_PER_ACCOUNT: '20', RESET_MAX_PER_ADDRESS: '20' });
  });
  afterAll(async () => {
    await h?.close();
  });

  const change = (token: string, email: string, currentPassword?: string) =>
    h.app.inject({
      method: 'PUT',
      url: '/api/user/change-email',
      payload: { email, ...(currentPassword !== undefined ? { currentPassword } : {}) },
      headers: { ...bearer(token), 'x-forwarded-for': freshIp() },
    });
  const post = (url: string, payload: unknown, token?: string) =>
    h.app.inject({
      method: 'POST',
      url,
      payload: payload as object,
      ...(token ? { headers: bearer(token) } : {}),
    });
  const profile = (token: string) =>
    h.app.inject({ method: 'GET', url: '/api/user/profile', headers: bearer(token) });
  const internal = (token: string) =>
    h.app.inject({ method: 'GET', url: '/internal/account', headers: fromPayments(token) });
  /** Both places a stolen token could still count: an account route and the money paths' check. */
  const stillWorks = async (token: string) => {
    const [a, b] = await Promise.all([profile(token), internal(token)]);
    return {
      profile: a.statusCode,
      internal: b.statusCode,
      message: ErrorBody.safeParse(b.json()).data?.message,
    };
  };
  const resetFromMail = async (email: string, newPassword: string) => {
    expect((await post('/api/user/forgot-password', { email })).statusCode).toBe(202);
    const mail = await h.mail.waitFor(email, isReset);
    const reset = await post('/api/user/reset-password', { token: tokenOf(mail), newPassword });
    expect(reset.statusCode).toBe(200);
  };

  it('a pending email change dies with the owner reset: the thief confirm link is refused (finding 1)', async () => {
    const victim = await register(h.app);
    const thiefAddress = `thief_${victim.username}@evil.example`;
    expect((await change(victim.token, thiefAddress, victim.password)).statusCode).toBe(200);
    const thiefLink = await h.mail.waitFor(thiefAddress, isConfirm);
    await resetFromMail(victim.email, 'the-owner-is-back-1');
    const confirmed = await post('/api/user/confirm-email', { token: tokenOf(thiefLink) });
    expect(confirmed.statusCode).toBe(400);
    expect(ErrorBody.parse(confirmed.json()).message).toMatch(/replaced by a newer request or cancelled/);
    expect((await login(h.app, victim.email, 'the-owner-is-back-1')).statusCode).toBe(200);
  });

  it('a pending email change dies with a password change and with "end session" too', async () => {
    for (const event of ['password change', 'end session'] as const) {
      const victim = await register(h.app);
      const thiefAddress = `thief_${victim.username}@evil.example`;
      const thiefToken = victim.token;
      expect((await change(thiefToken, thiefAddress, victim.password)).statusCode).toBe(200);
      const thiefLink = await h.mail.waitFor(thiefAddress, isConfirm);
      const owner = await loginToken(h.app, victim.username, victim.password);
      if (event === 'password change') {
        const changed = await h.app.inject({
          method: 'PUT',
          url: '/api/user/change-password',
          payload: { currentPassword: victim.password, newPassword: 'a-brand-new-one-2' },
          headers: { ...bearer(owner), 'x-forwarded-for': freshIp() },
        });
        expect(changed.statusCode).toBe(200);
      } else {
        const sessions = await h.app.inject({
          method: 'GET',
          url: '/api/user/sessions',
          headers: bearer(owner),
        });
        const stolen = (sessions.json() as { sessions: { id: string; current: boolean }[] }).sessions.find(
          (s) => !s.current,
        )!;
        const ended = await h.app.inject({
          method: 'DELETE',
          url: `/api/user/sessions/${stolen.id}`,
          headers: bearer(owner),
        });
        expect(ended.statusCode).toBe(200);
      }
      const confirmed = await post('/api/user/confirm-email', { token: tokenOf(thiefLink) });
      expect(confirmed.statusCode, event).toBe(400);
    }
  });

  it('a token issued before a reset is refused at once on account routes and on /internal/account (finding 2)', async () => {
    const victim = await register(h.app);
    expect(await stillWorks(victim.token)).toMatchObject({ profile: 200, internal: 200 });
    await resetFromMail(victim.email, 'after-the-reset-3');
    const after = await stillWorks(victim.token);
    expect(after).toMatchObject({ profile: 401, internal: 401 });
    expect(after.message).toMatch(/security change|sign in again/);
  });

  it('ending a session ends its access token at once; the other sessions keep theirs', async () => {
    const victim = await register(h.app);
    const owner = await loginToken(h.app, victim.username, victim.password);
    const sessions = await h.app.inject({ method: 'GET', url: '/api/user/sessions', headers: bearer(owner) });
    const stolen = (sessions.json() as { sessions: { id: string; current: boolean }[] }).sessions.find(
      (s) => !s.current,
    )!;
    expect(
      (
        await h.app.inject({
          method: 'DELETE',
          url: `/api/user/sessions/${stolen.id}`,
          headers: bearer(owner),
        })
      ).statusCode,
    ).toBe(200);
    expect(await stillWorks(victim.token)).toMatchObject({ profile: 401, internal: 401 });
    expect(await stillWorks(owner)).toMatchObject({ profile: 200, internal: 200 });
    // Announced for the game, which refuses the session's clicks until its last token has expired.
    const endedAt = Date.now();
    await eventually(
      () => h.events.of(SUBJECTS.sessionEnded).some((e) => e.data.sessionId === stolen.id),
      'the session ended event',
    );
    const [announced, ...again] = h.events
      .of(SUBJECTS.sessionEnded)
      .filter((e) => e.data.sessionId === stolen.id);
    expect(again).toEqual([]);
    expect(announced!.data.userId).toBe(victim.id);
    const until = Date.parse(announced!.data.until) - endedAt;
    expect(until).toBeGreaterThan(14 * 60_000);
    expect(until).toBeLessThan(17 * 60_000);
  });

  it('"sign out everywhere" ends every earlier token, the caller gets a successor; a password change ends the other sessions', async () => {
    const victim = await register(h.app);
    const owner = await loginToken(h.app, victim.username, victim.password);
    const everywhere = await h.app.inject({
      method: 'DELETE',
      url: '/api/user/sessions',
      headers: bearer(owner),
    });
    expect(everywhere.statusCode).toBe(200);
    const next = MessageWithTokenResponse.parse(everywhere.json()).token;
    expect(await stillWorks(victim.token)).toMatchObject({ profile: 401, internal: 401 });
    // The caller's own old token may be the stolen copy: it ends too, and the answer's token carries on.
    expect(await stillWorks(owner)).toMatchObject({ profile: 401, internal: 401 });
    expect(await stillWorks(next)).toMatchObject({ profile: 200, internal: 200 });

    // A thief signed in with the password; the owner changes it from their own session.
    const thief = await login(h.app, victim.username, victim.password);
    const changed = await h.app.inject({
      method: 'PUT',
      url: '/api/user/change-password',
      payload: { currentPassword: victim.password, newPassword: 'changed-password-4' },
      headers: { ...bearer(next), 'x-forwarded-for': freshIp() },
    });
    expect(changed.statusCode).toBe(200);
    expect(await stillWorks(thief.json().token)).toMatchObject({ profile: 401, internal: 401 });
    const thiefRefresh = await h.app.inject({
      method: 'POST',
      url: '/api/user/refresh',
      cookies: { omc_refresh: refreshCookieOf(thief)! },
    });
    expect(thiefRefresh.statusCode).toBe(401);
    // The owner's session carries on, with the token it held (as the original client expects) or the answer's.
    expect(await stillWorks(next)).toMatchObject({ profile: 200, internal: 200 });
    expect(await stillWorks(MessageWithTokenResponse.parse(changed.json()).token)).toMatchObject({
      profile: 200,
    });
  });

  it('an email confirm keeps the owner session (SPEC client carries on) and spends the reset links', async () => {
    const victim = await register(h.app);
    const newAddress = `new_${victim.email}`;
    expect((await change(victim.token, newAddress, victim.password)).statusCode).toBe(200);
    const link = await h.mail.waitFor(newAddress, isConfirm);
    expect((await post('/api/user/confirm-email', { token: tokenOf(link) })).statusCode).toBe(200);
    expect(await stillWorks(victim.token)).toMatchObject({ profile: 200, internal: 200 });
  });

  it('a reset link requested before an email change no longer works once the change is confirmed (finding 4)', async () => {
    const owner = await register(h.app);
    expect((await post('/api/user/forgot-password', { email: owner.email })).statusCode).toBe(202);
    const oldReset = await h.mail.waitFor(owner.email, isReset);
    const newAddress = `moved_${owner.email}`;
    expect((await change(owner.token, newAddress, owner.password)).statusCode).toBe(200);
    const link = await h.mail.waitFor(newAddress, isConfirm);
    expect((await post('/api/user/confirm-email', { token: tokenOf(link) })).statusCode).toBe(200);
    const reset = await post('/api/user/reset-password', {
      token: tokenOf(oldReset),
      newPassword: 'old-mailbox-5',
    });
    expect(reset.statusCode).toBe(400);
    expect(ErrorBody.parse(reset.json()).message).toMatch(/already used/);
  });

  it('an address spelled with U+212A KELVIN SIGN is a real change: pending, confirmed by its inbox, the old one told (finding 3)', async () => {
    const user = newUser('kelvin');
    const victim = await register(h.app, { ...user, email: `kk_${user.username}@example.com` });
    const lookalike = victim.email.replace(/k/g, '\u212A');
    expect(lookalike).not.toBe(victim.email);
    const asked = await change(victim.token, lookalike, victim.password);
    expect(asked.statusCode).toBe(200);
    const body = ProfileResponse.parse((await profile(victim.token)).json());
    expect(body.email).toBe(victim.email);
    expect(body.pendingEmail).toBe(lookalike);
    await h.mail.waitFor(lookalike, isConfirm);
    await h.mail.waitFor(victim.email, isUndo);
  });

  it('one identity per address: a look-alike or other-case spelling of a registered address is taken', async () => {
    const owner = await register(h.app, { ...newUser('taken'), email: `kate_${Date.now()}@example.com` });
    for (const spelling of [
      owner.email.replace('k', '\u212A'),
      owner.email.toUpperCase(),
      ` ${owner.email}`.trim().normalize('NFKD'),
    ]) {
      const again = await h.app.inject({
        method: 'POST',
        url: '/api/user/register',
        payload: { ...newUser('squat'), email: spelling },
        headers: { 'x-forwarded-for': freshIp() },
      });
      expect(again.statusCode, spelling).toBe(409);
    }
    // And the look-alike finds the account at sign-in, as the address does.
    expect((await login(h.app, owner.email.replace('k', '\u212A'), owner.password)).statusCode).toBe(200);
  });

  it('an undo tells the address the change had moved to; notices write addresses so no mail client links them', async () => {
    const victim = await register(h.app);
    const hostile = `https://clicks.example.com@evil_${victim.username}.example`;
    const moved = `moved_${victim.email}`;
    expect((await change(victim.token, moved, victim.password)).statusCode).toBe(200);
    const link = await h.mail.waitFor(moved, isConfirm);
    const notice = await h.mail.waitFor(victim.email, isUndo);
    expect((await post('/api/user/confirm-email', { token: tokenOf(link) })).statusCode).toBe(200);
    expect((await post('/api/user/undo-email-change', { token: tokenOf(notice) })).statusCode).toBe(200);
    const told = await h.mail.waitFor(moved, (m) => m.subject === 'Se deshizo el cambio de correo');
    expect(told.text).toContain(victim.email.replace(/\./g, '[.]'));

    for (const language of ['es', 'en', 'fr', 'de', 'it', 'pt'] as const) {
      const mail = renderMail('emailChangeNotice', language, {
        link: 'https://play.example/undo?token=t',
        address: hostile,
        days: 7,
        hours: 72,
      });
      for (const part of [mail.text, mail.html]) {
        expect(part).not.toContain('https://clicks.example.com');
        expect(part).not.toContain(`@evil_${victim.username}.example`);
      }
      expect(mail.html).not.toMatch(/<a [^>]*evil/);
      expect(mail.text).toContain('clicks[.]example[.]com@evil_');
    }
  });

  it('an undo expires once a confirmed change has settled', async () => {
    const victim = await register(h.app);
    const moved = `settled_${victim.email}`;
    expect((await change(victim.token, moved, victim.password)).statusCode).toBe(200);
    const link = await h.mail.waitFor(moved, isConfirm);
    const notice = await h.mail.waitFor(victim.email, isUndo);
    expect((await post('/api/user/confirm-email', { token: tokenOf(link) })).statusCode).toBe(200);
    // Confirmed 73 hours ago: past the 72 hours after which the change settles.
    await h.deps.db
      .updateTable('email_changes')
      .set({ confirmed_at: new Date(Date.now() - 73 * 3600_000) })
      .where('user_id', '=', victim.id)
      .execute();
    const undo = await post('/api/user/undo-email-change', { token: tokenOf(notice) });
    expect(undo.statusCode).toBe(400);
    expect(ErrorBody.parse(undo.json()).message).toMatch(/expired/);
  });
});

describe('an email change needs the current password or a recent sign-in', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    // No window: every change needs the password.
    h = await startAuth({ REAUTH_WINDOW_SECONDS: '0' });
  });
  afterAll(async () => {
    await h?.close();
  });
  const change = (token: string, payload: object) =>
    h.app.inject({
      method: 'PUT',
      url: '/api/user/change-email',
      payload,
      headers: { ...bearer(token), 'x-forwarded-for': freshIp() },
    });

  it('refuses a change without the password (400 naming currentPassword), a wrong one, and takes the right one', async () => {
    const owner = await register(h.app);
    const without = await change(owner.token, { email: `a_${owner.email}` });
    expect(without.statusCode).toBe(400);
    expect(ErrorBody.parse(without.json())).toMatchObject({ field: 'currentPassword' });
    const wrong = await change(owner.token, { email: `a_${owner.email}`, currentPassword: 'not-it' });
    expect(wrong.statusCode).toBe(400);
    expect(ErrorBody.parse(wrong.json()).message).toMatch(/Current password is incorrect/);
    expect(
      (await change(owner.token, { email: `a_${owner.email}`, currentPassword: owner.password })).statusCode,
    ).toBe(200);
  });

  it('gives /internal/account the session sign-in time, for payout email changes', async () => {
    const owner = await register(h.app);
    const account = InternalAccount.parse(
      (
        await h.app.inject({ method: 'GET', url: '/internal/account', headers: fromPayments(owner.token) })
      ).json(),
    );
    expect(Date.parse(account.signedInAt!)).toBeGreaterThan(Date.now() - 60_000);
  });
});
