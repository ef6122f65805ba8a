// Email verification as a player and as an attacker: the link mailed at registration (an email change is
// confirmed by its own link, email-change.test.ts), its single use, its expiry, forged and foreign links,
// the resend and its limit, the profile flag.
import { createHmac } from 'node:crypto';
import { ErrorBody, MessageResponse, ProfileResponse, SUBJECTS } from '@omc/contracts';
import type { SunkMail } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, freshIp, loginToken, newUser, register, startAuth, type AuthHarness } from './support.js';

describe('email verification', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth({ RESEND_MAX_PER_ACCOUNT: '2', PUBLIC_WEB_URL: 'https://play.example' });
  });
  afterAll(async () => {
    await h?.close();
  });

  const isVerify = (m: SunkMail) => Boolean(m.link?.includes('/verify-email'));
  const tokenOf = (m: SunkMail) => new URL(m.link!).searchParams.get('token')!;
  const verify = (token: string, auth?: string) =>
    h.app.inject({
      method: 'POST',
      url: '/api/user/verify-email',
      payload: { token },
      ...(auth ? { headers: bearer(auth) } : {}),
    });
  const profile = async (token: string) =>
    ProfileResponse.parse(
      (await h.app.inject({ method: 'GET', url: '/api/user/profile', headers: bearer(token) })).json(),
    );
  const resend = (token: string, ip = freshIp()) =>
    h.app.inject({
      method: 'POST',
      url: '/api/user/resend-verification',
      headers: { ...bearer(token), 'x-forwarded-for': ip },
    });

  it('mails a link at registration that verifies the address once', async () => {
    const user = await register(h.app);
    expect((await profile(user.token)).emailVerified).toBe(false);
    const mail = await h.mail.waitFor(user.email, isVerify);
    expect(mail.subject).toBe('Confirma tu correo');
    expect(mail.link).toMatch(/^https:\/\/play\.example\/verify-email\?token=/);
    expect(mail.html).toContain('<html lang="es">');

    const done = await verify(tokenOf(mail));
    expect(done.statusCode).toBe(200);
    MessageResponse.parse(done.json());
    expect((await profile(user.token)).emailVerified).toBe(true);
    await expect
      .poll(() => h.events.of(SUBJECTS.emailVerified).filter((e) => e.data.userId === user.id).length)
      .toBe(1);

    const again = await verify(tokenOf(mail));
    expect(again.statusCode).toBe(400);
    expect(ErrorBody.parse(again.json()).message).toMatch(/already used/);
  });

  it('writes the mail in the language the player signed up in, and refuses an unknown language', async () => {
    const user = newUser();
    const answer = await h.app.inject({
      method: 'POST',
      url: '/api/user/register',
      payload: { ...user, preferredLanguage: 'en' },
      headers: { 'x-forwarded-for': freshIp() },
    });
    expect(answer.statusCode).toBe(201);
    expect(Object.keys(answer.json()).sort()).toEqual(['message', 'token']);
    expect((await h.mail.waitFor(user.email, isVerify)).subject).toBe('Confirm your email');
    const login = await h.app.inject({
      method: 'POST',
      url: '/api/user/login',
      payload: { emailOrUsername: user.username, password: user.password },
      headers: { 'x-forwarded-for': freshIp() },
    });
    expect(login.json().preferredLanguage).toBe('en');
    const bad = await h.app.inject({
      method: 'POST',
      url: '/api/user/register',
      payload: { ...newUser(), preferredLanguage: 'xx' },
      headers: { 'x-forwarded-for': freshIp() },
    });
    expect(bad.statusCode).toBe(400);
    expect(ErrorBody.parse(bad.json()).field).toBe('preferredLanguage');
  });

  it('refuses forged, altered, expired and foreign links, changing nothing', async () => {
    const user = await register(h.app);
    const token = tokenOf(await h.mail.waitFor(user.email, isVerify));
    const [body] = token.split('.');
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString());
    const otherBody = Buffer.from(JSON.stringify({ ...claims, x: claims.x + 1 })).toString('base64url');
    const forgedMac = createHmac('sha256', 'guessed key').update(body!).digest('base64url');
    for (const bad of [
      'nonsense',
      `${otherBody}.${token.split('.')[1]}`,
      `${body}.${forgedMac}`,
      `${token}.x`,
    ]) {
      const response = await verify(bad);
      expect(response.statusCode).toBe(400);
      expect(ErrorBody.parse(response.json()).field).toBe('token');
    }
    // Signed in as someone else: refused.
    const stranger = await register(h.app);
    expect((await verify(token, stranger.token)).statusCode).toBe(403);
    // Expired.
    const realClock = h.deps.clock;
    h.deps.clock = () => realClock() + 49 * 3600_000;
    try {
      const late = await verify(token);
      expect(late.statusCode).toBe(400);
      expect(ErrorBody.parse(late.json()).message).toMatch(/expired/);
    } finally {
      h.deps.clock = realClock;
    }
    expect((await profile(user.token)).emailVerified).toBe(false);
    // The owner, signed in, still can.
    expect((await verify(token, user.token)).statusCode).toBe(200);
  });

  it('an email change confirmed from the new inbox verifies it, and older links no longer work', async () => {
    const user = await register(h.app);
    const old = tokenOf(await h.mail.waitFor(user.email, isVerify));
    const newEmail = `new_${user.email}`;
    const changed = await h.app.inject({
      method: 'PUT',
      url: '/api/user/change-email',
      payload: { email: newEmail },
      headers: bearer(user.token),
    });
    expect(changed.statusCode).toBe(200);
    // Nothing changes until the new address confirms (email-change.test.ts has the rest).
    expect(await profile(user.token)).toMatchObject({ email: user.email, emailVerified: false });
    const confirmMail = await h.mail.waitFor(newEmail, (m) => Boolean(m.link?.includes('/confirm-email')));
    const confirmed = await h.app.inject({
      method: 'POST',
      url: '/api/user/confirm-email',
      payload: { token: tokenOf(confirmMail) },
    });
    expect(confirmed.statusCode).toBe(200);
    // The link proved the new address: verified, without a verification mail (read signed in again,
    // by the new address).
    expect(await profile(await loginToken(h.app, newEmail, user.password))).toMatchObject({
      email: newEmail,
      emailVerified: true,
    });
    expect(h.mail.to(newEmail).filter(isVerify)).toEqual([]);
    const stale = await verify(old);
    expect(stale.statusCode).toBe(400);
    expect(ErrorBody.parse(stale.json()).message).toMatch(/no longer uses/);
  });

  it('resends a link, limited per account, and refuses once verified', async () => {
    const user = await register(h.app);
    const answers = await Promise.all([
      resend(user.token),
      resend(user.token),
      resend(user.token),
      resend(user.token),
    ]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 200, 429, 429]);
    await h.mail.waitFor(user.email, () => h.mail.to(user.email).filter(isVerify).length >= 3);
    await new Promise((r) => setTimeout(r, 500));
    expect(h.mail.to(user.email).filter(isVerify)).toHaveLength(3);
    expect((await verify(tokenOf(h.mail.to(user.email).filter(isVerify).at(-1)!))).statusCode).toBe(200);
    const done = await resend(user.token);
    expect(done.statusCode).toBe(409);
    expect((await h.app.inject({ method: 'POST', url: '/api/user/resend-verification' })).statusCode).toBe(
      401,
    );
  });
});
