// Forgotten passwords, as a player and as an attacker: the mailed link, its single use and expiry, the
// sessions it ends, the notice, the limits, and that no answer tells whether an address has an account.
import { ErrorBody, FORGOT_PASSWORD_MESSAGE, makeEvent, MessageResponse, SUBJECTS } from '@omc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SunkMail } from '@omc/testkit';
import { bearer, freshIp, login, newUser, register, startAuth, type AuthHarness } from './support.js';

describe('password reset', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth({
      RESET_MAX_PER_ADDRESS: '3',
      RESET_MAX_PER_IP: '6',
      PUBLIC_WEB_URL: 'https://play.example',
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  const forgot = (email: string, ip = freshIp()) =>
    h.app.inject({
      method: 'POST',
      url: '/api/user/forgot-password',
      payload: { email },
      headers: { 'x-forwarded-for': ip },
    });
  const reset = (token: string, newPassword: string) =>
    h.app.inject({ method: 'POST', url: '/api/user/reset-password', payload: { token, newPassword } });
  const tokenOf = (link: string | undefined) => new URL(link!).searchParams.get('token')!;
  /** Reset mails only (registration also mails a verification link). */
  const isReset = (m: SunkMail) => Boolean(m.link?.includes('/reset-password'));
  const resets = (email: string) => h.mail.to(email).filter(isReset);

  it('answers 202 with the same body for an account and for an unknown address, and mails only the account', async () => {
    const user = await register(h.app);
    const known = await forgot(user.email);
    const unknown = await forgot(`nobody_${Date.now()}@example.com`);
    expect(known.statusCode).toBe(202);
    expect(unknown.statusCode).toBe(202);
    expect(known.body).toBe(unknown.body);
    expect(MessageResponse.parse(known.json()).message).toBe(FORGOT_PASSWORD_MESSAGE);
    const mail = await h.mail.waitFor(user.email, isReset);
    // Spanish by default, plain text and HTML, a link into the web app.
    expect(mail.subject).toBe('Restablece tu contraseña');
    expect(mail.text).toContain('30 minutos');
    expect(mail.html).toContain('<html lang="es">');
    expect(mail.link).toMatch(/^https:\/\/play\.example\/reset-password\?token=[\w-]{40,}$/);
    expect(mail.html).toContain(mail.link!);
    await new Promise((r) => setTimeout(r, 600));
    expect(h.mail.mails.filter((m) => m.to.some((t) => t.startsWith('nobody_')))).toHaveLength(0);
  });

  it("writes the mail in the account's preferred language", async () => {
    const user = await register(h.app);
    await h.app.inject({
      method: 'PUT',
      url: '/api/user/change-language',
      payload: { language: 'en' },
      headers: bearer(user.token),
    });
    await forgot(user.email.toUpperCase());
    const mail = await h.mail.waitFor(user.email, isReset);
    expect(mail.subject).toBe('Reset your password');
    expect(mail.text).toContain('expires in 30 minutes');
  });

  it('sets the new password from the mailed link, ends every session and sends a notice', async () => {
    const user = await register(h.app);
    const other = await login(h.app, user.username, user.password);
    expect(other.statusCode).toBe(200);
    await forgot(user.email);
    const token = tokenOf((await h.mail.waitFor(user.email, isReset)).link);

    const done = await reset(token, 'a-brand-new-password');
    expect(done.statusCode).toBe(200);
    MessageResponse.parse(done.json());

    expect((await login(h.app, user.username, user.password)).statusCode).toBe(401);
    expect((await login(h.app, user.username, 'a-brand-new-password')).statusCode).toBe(200);
    for (const cookie of [user.refresh, other.cookies.find((c) => c.name === 'omc_refresh')!.value]) {
      const refreshed = await h.app.inject({
        method: 'POST',
        url: '/api/user/refresh',
        cookies: { omc_refresh: cookie },
      });
      expect(refreshed.statusCode).toBe(401);
    }
    const notice = await h.mail.waitFor(user.email, (m) => m.subject === 'Tu contraseña ha cambiado');
    expect(notice.link).toBeUndefined();

    // Used once: the same link again is refused and changes nothing.
    const again = await reset(token, 'yet-another-password');
    expect(again.statusCode).toBe(400);
    expect(ErrorBody.parse(again.json()).message).toMatch(/already used/);
    expect((await login(h.app, user.username, 'a-brand-new-password')).statusCode).toBe(200);
  });

  it('stores only a hash of the token, and a newer reset spends the older links', async () => {
    const user = await register(h.app);
    await forgot(user.email);
    const first = tokenOf((await h.mail.waitFor(user.email, isReset)).link);
    const rows = await h.deps.db
      .selectFrom('password_reset_tokens')
      .select('token_hash')
      .where('user_id', '=', user.id)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).not.toContain(first);
    await forgot(user.email);
    await h.mail.waitFor(user.email, (m) => isReset(m) && tokenOf(m.link) !== first);
    const second = tokenOf(resets(user.email).at(-1)!.link);
    expect((await reset(second, 'second-link-password')).statusCode).toBe(200);
    const stale = await reset(first, 'first-link-password');
    expect(stale.statusCode).toBe(400);
    expect((await login(h.app, user.username, 'second-link-password')).statusCode).toBe(200);
  });

  it('refuses an expired link and changes nothing', async () => {
    const user = await register(h.app);
    await forgot(user.email);
    const token = tokenOf((await h.mail.waitFor(user.email, isReset)).link);
    const realClock = h.deps.clock;
    h.deps.clock = () => realClock() + 31 * 60_000;
    try {
      const late = await reset(token, 'too-late-password');
      expect(late.statusCode).toBe(400);
      expect(ErrorBody.parse(late.json()).message).toMatch(/expired/);
    } finally {
      h.deps.clock = realClock;
    }
    expect((await login(h.app, user.username, user.password)).statusCode).toBe(200);
  });

  it('refuses forged and malformed tokens with a 400 naming the problem', async () => {
    for (const token of ['forged-token-that-was-never-issued', 'x'.repeat(43)]) {
      const response = await reset(token, 'whatever-password');
      expect(response.statusCode).toBe(400);
      expect(ErrorBody.parse(response.json()).field).toBe('token');
    }
    const long = await reset('x'.repeat(600), 'whatever-password');
    expect(long.statusCode).toBe(400);
    const weak = await reset('some-token', '1');
    expect(weak.statusCode).toBe(400);
    expect(ErrorBody.parse(weak.json()).field).toBe('newPassword');
  });

  it('lets one of two racing uses of a link win', async () => {
    const user = await register(h.app);
    await forgot(user.email);
    const token = tokenOf((await h.mail.waitFor(user.email, isReset)).link);
    const [a, b] = await Promise.all([reset(token, 'racing-password-a'), reset(token, 'racing-password-b')]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 400]);
  });

  it('limits a flood for one address (whether or not it has an account) and never mails past the limit', async () => {
    const user = await register(h.app);
    const answers = await Promise.all(Array.from({ length: 8 }, () => forgot(user.email)));
    const codes = answers.map((a) => a.statusCode);
    expect(codes.filter((c) => c === 202)).toHaveLength(3);
    expect(codes.filter((c) => c === 429)).toHaveLength(5);
    const refused = answers.find((a) => a.statusCode === 429)!;
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    ErrorBody.parse(refused.json());
    await h.mail.waitFor(user.email, () => resets(user.email).length >= 3);
    await new Promise((r) => setTimeout(r, 600));
    expect(resets(user.email)).toHaveLength(3);

    // An address without an account is limited exactly the same way.
    const ghost = `ghost_${Date.now()}@example.com`;
    const ghostCodes = (await Promise.all(Array.from({ length: 8 }, () => forgot(ghost)))).map(
      (a) => a.statusCode,
    );
    expect(ghostCodes.sort()).toEqual(codes.sort());
  });

  it('limits a flood from one IP across addresses', async () => {
    const ip = freshIp();
    const codes: number[] = [];
    for (let i = 0; i < 9; i += 1) codes.push((await forgot(newUser('flood').email, ip)).statusCode);
    expect(codes.filter((c) => c === 202)).toHaveLength(6);
    expect(codes.slice(6)).toEqual([429, 429, 429]);
  });

  it('sends one mail for an event delivered twice', async () => {
    const user = await register(h.app);
    const event = makeEvent(SUBJECTS.passwordReset, { userId: user.id, email: user.email, language: 'de' });
    // The same event id under two message ids: JetStream delivers both, as after a re-publish.
    await h.deps.nats.js.publish(event.subject, JSON.stringify(event), { msgID: `${event.id}-a` });
    await h.deps.nats.js.publish(event.subject, JSON.stringify(event), { msgID: `${event.id}-b` });
    await h.mail.waitFor(user.email, (m) => m.subject === 'Ihr Passwort wurde geändert');
    await new Promise((r) => setTimeout(r, 500));
    expect(h.mail.to(user.email).filter((m) => m.subject === 'Ihr Passwort wurde geändert')).toHaveLength(1);
  });

  it('delays mail while the mail server is down and sends it once it is back', async () => {
    const user = await register(h.app);
    h.mail.down();
    try {
      const answer = await forgot(user.email);
      expect(answer.statusCode).toBe(202);
      const deadline = Date.now() + 10_000;
      for (;;) {
        const row = await h.deps.db
          .selectFrom('mail_queue')
          .select(['attempts', 'sent_at'])
          .where('recipient', '=', user.email)
          .where('kind', '=', 'passwordReset')
          .executeTakeFirst();
        if (row && row.attempts >= 2) {
          expect(row.sent_at).toBeNull();
          break;
        }
        if (Date.now() > deadline) throw new Error('the sender did not retry');
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(resets(user.email)).toHaveLength(0);
    } finally {
      h.mail.up();
    }
    await h.mail.waitFor(user.email, isReset);
    await new Promise((r) => setTimeout(r, 300));
    expect(resets(user.email)).toHaveLength(1);
  });
});
