// Email change as a player and as an attacker: the account keeps its address until the new one confirms
// from the mailed link; the old one is told at once with an undo link that restores it and ends every
// session; forged, reused, expired, replaced and foreign links change nothing; requests are limited.
import {
  CHANGE_EMAIL_PENDING_MESSAGE,
  ErrorBody,
  makeEvent,
  MessageResponse,
  ProfileResponse,
  normalizeEmail,
  SUBJECTS,
} from '@omc/contracts';
import type { SunkMail } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, freshIp, login, register, startAuth, type AuthHarness } from './support.js';
import { createEmailChange } from '../src/email-change/email-changes.repo.js';

describe('email change', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth({ EMAIL_CHANGE_MAX_PER_ACCOUNT: '3', PUBLIC_WEB_URL: 'https://play.example' });
  });
  afterAll(async () => {
    await h?.close();
  });

  const isConfirm = (m: SunkMail) => Boolean(m.link?.includes('/confirm-email?'));
  const isUndo = (m: SunkMail) => Boolean(m.link?.includes('/undo-email-change?'));
  const tokenOf = (m: SunkMail) => new URL(m.link!).searchParams.get('token')!;
  const change = (token: string, email: string, ip = freshIp()) =>
    h.app.inject({
      method: 'PUT',
      url: '/api/user/change-email',
      payload: { email },
      headers: { ...bearer(token), 'x-forwarded-for': ip },
    });
  const post = (url: string, token: string, auth?: string) =>
    h.app.inject({ method: 'POST', url, payload: { token }, ...(auth ? { headers: bearer(auth) } : {}) });
  const confirm = (token: string, auth?: string) => post('/api/user/confirm-email', token, auth);
  const undo = (token: string, auth?: string) => post('/api/user/undo-email-change', token, auth);
  const profile = async (token: string) =>
    ProfileResponse.parse(
      (await h.app.inject({ method: 'GET', url: '/api/user/profile', headers: bearer(token) })).json(),
    );
  const refresh = (cookie: string) =>
    h.app.inject({ method: 'POST', url: '/api/user/refresh', cookies: { omc_refresh: cookie } });
  const verifyFromMail = async (email: string) => {
    const mail = await h.mail.waitFor(email, (m) => Boolean(m.link?.includes('/verify-email')));
    expect((await post('/api/user/verify-email', tokenOf(mail))).statusCode).toBe(200);
  };
  const expectTokenError = (
    response: { statusCode: number; json(): unknown },
    status: number,
    text: RegExp,
  ) => {
    expect(response.statusCode).toBe(status);
    const body = ErrorBody.parse(response.json());
    expect(body.message).toMatch(text);
    return body;
  };

  it('keeps the email until the new address confirms from its mail; the old one is told with an undo link', async () => {
    const user = await register(h.app);
    await verifyFromMail(user.email);
    const newEmail = `moved_${user.email}`;
    const asked = await change(user.token, newEmail);
    expect(asked.statusCode).toBe(200);
    expect(MessageResponse.parse(asked.json()).message).toBe(CHANGE_EMAIL_PENDING_MESSAGE);
    expect(await profile(user.token)).toMatchObject({
      email: user.email,
      emailVerified: true,
      pendingEmail: newEmail,
    });
    // Still the old address to sign in with.
    expect((await login(h.app, newEmail, user.password)).statusCode).toBe(401);

    const confirmMail = await h.mail.waitFor(newEmail, isConfirm);
    expect(confirmMail.subject).toBe('Confirma tu nuevo correo');
    expect(confirmMail.link).toMatch(/^https:\/\/play\.example\/confirm-email\?token=/);
    expect(confirmMail.html).toContain('<html lang="es">');
    const notice = await h.mail.waitFor(user.email, isUndo);
    expect(notice.subject).toBe('Se pidió cambiar el correo de tu cuenta');
    // Written defanged, so no mail client turns the typed address into a link.
    expect(notice.text).toContain(newEmail.replace(/\./g, '[.]'));
    expect(notice.link).toMatch(/^https:\/\/play\.example\/undo-email-change\?token=/);
    // Neither address is sent the other's link.
    expect(h.mail.to(newEmail).filter(isUndo)).toEqual([]);
    expect(h.mail.to(user.email).filter(isConfirm)).toEqual([]);

    const done = await confirm(tokenOf(confirmMail));
    expect(done.statusCode).toBe(200);
    expect(MessageResponse.parse(done.json()).message).toContain(newEmail);
    // The link proved the address: verified at once, nothing pending; the session carries on.
    expect(
      (await h.app.inject({ method: 'GET', url: '/api/user/profile', headers: bearer(user.token) }))
        .statusCode,
    ).toBe(200);
    const afterConfirm = (await login(h.app, newEmail, user.password)).json().token as string;
    expect(await profile(afterConfirm)).toMatchObject({
      email: newEmail,
      emailVerified: true,
      pendingEmail: null,
    });
    expect((await login(h.app, newEmail, user.password)).statusCode).toBe(200);
    await expect
      .poll(() =>
        h.events.received
          .filter((e) => (e.data as { userId?: string }).userId === user.id)
          .filter((e) =>
            [SUBJECTS.userEmailChanged, SUBJECTS.emailChangeRequested].includes(e.subject as never),
          )
          .map((e) => e.subject)
          .sort(),
      )
      .toEqual([SUBJECTS.emailChangeRequested, SUBJECTS.userEmailChanged].sort());
    expect(h.events.of(SUBJECTS.userEmailChanged).find((e) => e.data.userId === user.id)!.data).toEqual({
      userId: user.id,
      email: newEmail,
    });

    expectTokenError(await confirm(tokenOf(confirmMail)), 400, /already used/);
    expect((await profile(afterConfirm)).email).toBe(newEmail);
  });

  it('mails both addresses in the language of the account', async () => {
    const user = await register(h.app);
    const language = await h.app.inject({
      method: 'PUT',
      url: '/api/user/change-language',
      payload: { language: 'en' },
      headers: bearer(user.token),
    });
    expect(language.statusCode).toBe(200);
    const newEmail = `en_${user.email}`;
    expect((await change(user.token, newEmail)).statusCode).toBe(200);
    expect((await h.mail.waitFor(newEmail, isConfirm)).subject).toBe('Confirm your new email');
    const notice = await h.mail.waitFor(user.email, isUndo);
    expect(notice.subject).toBe('A change of your account email was requested');
    expect(notice.html).toContain('<html lang="en">');
    expect(notice.html).toContain('Undo the email change');
  });

  it('refuses forged, expired and foreign links, and bad bodies, changing nothing', async () => {
    const user = await register(h.app);
    const newEmail = `x_${user.email}`;
    expect((await change(user.token, newEmail)).statusCode).toBe(200);
    const token = tokenOf(await h.mail.waitFor(newEmail, isConfirm));
    const undoToken = tokenOf(await h.mail.waitFor(user.email, isUndo));
    for (const bad of ['nonsense', `${token}x`, token.slice(1), undoToken]) {
      const body = expectTokenError(await confirm(bad), 400, /not valid/);
      expect(body.field).toBe('token');
    }
    for (const bad of ['nonsense', token]) expectTokenError(await undo(bad), 400, /not valid/);
    for (const url of ['/api/user/confirm-email', '/api/user/undo-email-change']) {
      for (const payload of [{}, { token: '' }, { token: 'x'.repeat(600) }, { token: 7 }]) {
        const response = await h.app.inject({ method: 'POST', url, payload });
        expect(response.statusCode).toBe(400);
        expect(ErrorBody.parse(response.json()).field).toBe('token');
      }
    }
    // Signed in as someone else: refused, both links.
    const stranger = await register(h.app);
    expect((await confirm(token, stranger.token)).statusCode).toBe(403);
    expect((await undo(undoToken, stranger.token)).statusCode).toBe(403);
    // Expired after EMAIL_CHANGE_TTL_HOURS (24).
    const realClock = h.deps.clock;
    h.deps.clock = () => realClock() + 25 * 3600_000;
    try {
      expectTokenError(await confirm(token), 400, /expired/);
      expect((await profile(user.token)).pendingEmail).toBeNull();
    } finally {
      h.deps.clock = realClock;
    }
    expect(await profile(user.token)).toMatchObject({ email: user.email, pendingEmail: newEmail });
    expect((await refresh(user.refresh)).statusCode).toBe(200);
    // The owner, signed in, still can.
    expect((await confirm(token, user.token)).statusCode).toBe(200);
  });

  it('a new request replaces the waiting one; asking for the current address cancels it', async () => {
    const user = await register(h.app);
    const first = `first_${user.email}`;
    const second = `second_${user.email}`;
    expect((await change(user.token, first)).statusCode).toBe(200);
    // The mail leaves first (a link replaced before its mail leaves is never minted: no mail at all).
    const stale = tokenOf(await h.mail.waitFor(first, isConfirm));
    expect((await change(user.token, second)).statusCode).toBe(200);
    expect((await profile(user.token)).pendingEmail).toBe(second);
    const secondToken = tokenOf(await h.mail.waitFor(second, isConfirm));
    expectTokenError(await confirm(stale), 400, /replaced/);
    expect((await profile(user.token)).email).toBe(user.email);

    const back = await change(user.token, user.email);
    expect(back.statusCode).toBe(200);
    expect(MessageResponse.parse(back.json()).message).toBe('Email updated');
    expect(await profile(user.token)).toMatchObject({ email: user.email, pendingEmail: null });
    // Another case of the local part is another spelling: a real change, confirmed from its inbox like
    // any other. The domain is kept in lower case.
    const upper = await change(user.token, user.email.toUpperCase());
    expect(MessageResponse.parse(upper.json()).message).toBe(CHANGE_EMAIL_PENDING_MESSAGE);
    expect(await profile(user.token)).toMatchObject({
      email: user.email,
      pendingEmail: normalizeEmail(user.email.toUpperCase()),
    });
    expectTokenError(await confirm(secondToken), 400, /replaced|cancelled/);
  });

  it('an address taken by another account is a 409, asked or at confirm time', async () => {
    const user = await register(h.app);
    const other = await register(h.app);
    const taken = await change(user.token, other.email.toUpperCase());
    expect(taken.statusCode).toBe(409);
    expect(ErrorBody.parse(taken.json()).field).toBe('email');

    const wanted = `wanted_${user.email}`;
    expect((await change(user.token, wanted)).statusCode).toBe(200);
    const token = tokenOf(await h.mail.waitFor(wanted, isConfirm));
    // Someone registers the address while the mail waits in the inbox.
    await register(h.app, { username: `squat_${Date.now()}`, email: wanted, password: 'secret-squat' });
    const late = await confirm(token);
    expect(late.statusCode).toBe(409);
    expect(ErrorBody.parse(late.json()).message).toMatch(/already registered/);
    expect((await profile(user.token)).email).toBe(user.email);
  });

  it('undo after the confirm restores the old address, ends every session and works once', async () => {
    const user = await register(h.app);
    await verifyFromMail(user.email);
    const second = await login(h.app, user.username, user.password);
    const secondCookie = second.cookies.find((c) => c.name === 'omc_refresh')!.value;
    const newEmail = `taken_over_${user.email}`;
    expect((await change(user.token, newEmail)).statusCode).toBe(200);
    const confirmToken = tokenOf(await h.mail.waitFor(newEmail, isConfirm));
    const undoToken = tokenOf(await h.mail.waitFor(user.email, isUndo));
    expect((await confirm(confirmToken)).statusCode).toBe(200);

    // Two days later: still within the 72 hours after the confirm (EMAIL_CHANGE_UNDO_AFTER_CONFIRM_HOURS).
    const realClock = h.deps.clock;
    h.deps.clock = () => realClock() + 2 * 24 * 3600_000;
    try {
      const undone = await undo(undoToken);
      expect(undone.statusCode).toBe(200);
      const message = MessageResponse.parse(undone.json()).message;
      expect(message).toContain(user.email);
      expect(message).toMatch(/signed out/);
    } finally {
      h.deps.clock = realClock;
    }
    for (const cookie of [user.refresh, secondCookie]) expect((await refresh(cookie)).statusCode).toBe(401);
    const fresh = await login(h.app, user.email, user.password);
    expect(fresh.statusCode).toBe(200);
    // The old address, verified as it was.
    expect(await profile(fresh.json().token)).toMatchObject({
      email: user.email,
      emailVerified: true,
      pendingEmail: null,
    });
    expect((await login(h.app, newEmail, user.password)).statusCode).toBe(401);
    await expect
      .poll(() =>
        h.events
          .of(SUBJECTS.userEmailChanged)
          .filter((e) => e.data.userId === user.id)
          .map((e) => e.data.email),
      )
      .toEqual([newEmail, user.email]);

    expectTokenError(await undo(undoToken), 400, /already used/);
    expectTokenError(await confirm(confirmToken), 400, /already used/);
  });

  it('undo before the confirm cancels the change and ends every session; undo links expire', async () => {
    const user = await register(h.app);
    const newEmail = `never_${user.email}`;
    expect((await change(user.token, newEmail)).statusCode).toBe(200);
    const confirmToken = tokenOf(await h.mail.waitFor(newEmail, isConfirm));
    const undoToken = tokenOf(await h.mail.waitFor(user.email, isUndo));
    expect((await undo(undoToken)).statusCode).toBe(200);
    expect((await refresh(user.refresh)).statusCode).toBe(401);
    expectTokenError(await confirm(confirmToken), 400, /undone/);
    const token = (await login(h.app, user.email, user.password)).json().token as string;
    expect(await profile(token)).toMatchObject({ email: user.email, pendingEmail: null });

    const later = `later_${user.email}`;
    expect((await change(token, later)).statusCode).toBe(200);
    const lateUndo = tokenOf(
      await h.mail.waitFor(user.email, (m) => isUndo(m) && m.text.includes(later.replace(/\./g, '[.]'))),
    );
    expect((await confirm(tokenOf(await h.mail.waitFor(later, isConfirm)))).statusCode).toBe(200);
    const realClock = h.deps.clock;
    h.deps.clock = () => realClock() + 8 * 24 * 3600_000;
    try {
      expectTokenError(await undo(lateUndo), 400, /expired/);
    } finally {
      h.deps.clock = realClock;
    }
    const afterConfirm = (await login(h.app, later, user.password)).json().token as string;
    expect((await profile(afterConfirm)).email).toBe(later);
  });

  it('limits a flood of change requests per account, and mails no more than the limit', async () => {
    const user = await register(h.app);
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => change(user.token, `flood${i}_${user.email}`)),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 200, 200, 429, 429]);
    const refused = answers.find((a) => a.statusCode === 429)!;
    expect(ErrorBody.parse(refused.json()).message).toMatch(/Too many email changes/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    await h.mail.waitFor(user.email, () => h.mail.to(user.email).filter(isUndo).length >= 3);
    await new Promise((r) => setTimeout(r, 500));
    expect(h.mail.to(user.email).filter(isUndo)).toHaveLength(3);
    expect(
      (await h.app.inject({ method: 'PUT', url: '/api/user/change-email', payload: { email: 'a@b.co' } }))
        .statusCode,
    ).toBe(401);
  });

  it('mails each address once for a request event delivered twice', async () => {
    const user = await register(h.app);
    const newEmail = `twice_${user.email}`;
    const later = (days: number) => Date.now() + days * 24 * 3600_000;
    // The change as the request stores it, and its event (which names it: the mailer mints the links).
    const requestId = await createEmailChange(h.deps.db, {
      userId: user.id,
      oldEmail: user.email,
      oldEmailVerifiedAt: null,
      newEmail,
      now: Date.now(),
      expiresAt: later(1),
      undoExpiresAt: later(7),
    });
    const event = makeEvent(SUBJECTS.emailChangeRequested, {
      userId: user.id,
      oldEmail: user.email,
      newEmail,
      language: 'pt',
      requestId,
      expiresAt: new Date(later(1)).toISOString(),
      undoExpiresAt: new Date(later(7)).toISOString(),
    });
    // Under two message ids, as after a re-publish from an outbox that crashed before marking it sent.
    for (const copy of ['first', 'again'])
      await h.deps.nats.js.publish(event.subject, JSON.stringify(event), { msgID: `${event.id}:${copy}` });
    expect((await h.mail.waitFor(newEmail, isConfirm)).subject).toBe('Confirma o teu novo email');
    expect((await h.mail.waitFor(user.email, isUndo)).subject).toBe(
      'Foi pedida a alteração do email da tua conta',
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect(h.mail.to(newEmail).filter(isConfirm)).toHaveLength(1);
    expect(h.mail.to(user.email).filter(isUndo)).toHaveLength(1);
    // Both links work: the confirm moves the account, the undo brings it back.
    expect((await confirm(tokenOf(h.mail.to(newEmail).find(isConfirm)!))).statusCode).toBe(200);
    expect((await undo(tokenOf(h.mail.to(user.email).find(isUndo)!))).statusCode).toBe(200);
  });
});
