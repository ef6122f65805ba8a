// Taking the account back from someone holding a copy of the owner's access token, black box through the
// gateway with the mail catcher, as a thief and an owner would: a reset, an undo or an ended session ends
// the copy on every money and account route at once; the thief's pending email change dies with the
// owner's reset; a look-alike spelling of the address is a real change; a reset link mailed before an
// email change dies when the change is confirmed.
import { linkIn, mailedLink, mailsTo, tokenOf } from '@omc/infra';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyEmails } from '../src/actions.js';
import { figures, invariant, reportFigures, suite } from '../src/context.js';
import { call, login, registerPlayer, waitFor, type Player } from '../src/http.js';

afterAll(reportFigures);

const mailUrl = () => suite().mailUrl!;

/** Sets a new password from the link mailed to `email`, as the notice to the old address advises. */
async function resetFromMail(email: string, newPassword: string): Promise<void> {
  const before = (await mailsTo(mailUrl(), email, /contraseña/)).length;
  expect((await call('POST', '/api/user/forgot-password', { body: { email } })).status).toBe(202);
  const { value: link } = await waitFor('the reset mail', async () => {
    const mails = await mailsTo(mailUrl(), email, /contraseña/);
    return mails.length > before
      ? mails.map((m) => linkIn(m, 'reset-password')).findLast(Boolean)
      : undefined;
  });
  const reset = await call('POST', '/api/user/reset-password', {
    body: { token: tokenOf(link), newPassword },
  });
  expect(reset.status).toBe(200);
}

/** The money and account routes a stolen token could use; each must now answer 401 with a message. */
async function stolenTokenRefused(token: string, what: string): Promise<void> {
  const uses: [string, string, unknown][] = [
    ['POST', '/api/winners/setPaymentMethod', { paypalEmail: 'thief@evil.example' }],
    ['POST', '/api/winners/collect', undefined],
    ['POST', '/api/payments/checkout', { paymentMethodNonce: 'fake-valid-nonce', amount: '0.99' }],
    ['PUT', '/api/user/change-email', { email: 'thief2@evil.example' }],
    ['PUT', '/api/user/change-username', { username: `thief_${Date.now() % 100000}` }],
    ['GET', '/api/user/profile', undefined],
  ];
  for (const [method, path, body] of uses) {
    const answer = await call(method, path, { token, body });
    figures.staleTokenUsesTried += 1;
    const refused = answer.status === 401 && typeof answer.body?.message === 'string';
    if (!refused) figures.tokensOutlivingRecovery += 1;
    invariant(`a token ${what} is refused on ${method} ${path}`, refused, `${answer.status} ${answer.text}`);
    expect(answer.status, `${method} ${path} with a token ${what}`).toBe(401);
  }
}

describe('recovery beats a stolen token', () => {
  it('finding 1: a pending email change outlives the owner reset -- no longer', async () => {
    const victim = await registerPlayer('rv');
    const thiefToken = victim.token;
    const thiefAddress = `${victim.username}_thief@example.net`;
    expect(
      (await call('PUT', '/api/user/change-email', { token: thiefToken, body: { email: thiefAddress } }))
        .status,
    ).toBe(200);
    const confirmLink = await mailedLink(mailUrl(), thiefAddress, 'confirm-email');
    await resetFromMail(victim.email, 'owner-is-back-1');
    const confirmed = await call('POST', '/api/user/confirm-email', {
      body: { token: tokenOf(confirmLink) },
    });
    if (confirmed.status === 200) figures.pendingChangesAfterReset += 1;
    invariant(
      'the thief cannot confirm an email change after the owner reset',
      confirmed.status === 400,
      confirmed.text,
    );
    const owner = await login(victim.username, 'owner-is-back-1');
    const profile = await call('GET', '/api/user/profile', { token: owner.token });
    expect(profile.body.email).toBe(victim.email);
  });

  it('finding 2: a token issued before a reset, an undo or an ended session moves no money and changes nothing', async () => {
    // A reset.
    const a = await registerPlayer('rr');
    await resetFromMail(a.email, 'after-reset-2');
    await stolenTokenRefused(a.token, 'issued before a password reset');

    // An ended session: the owner ends the thief's session from the sessions list.
    const b = await registerPlayer('rs');
    const owner = await login(b.username, b.password);
    const sessions = await call('GET', '/api/user/sessions', { token: owner.token });
    const stolen = (sessions.body.sessions as { id: string; current: boolean }[]).find((s) => !s.current)!;
    expect((await call('DELETE', `/api/user/sessions/${stolen.id}`, { token: owner.token })).status).toBe(
      200,
    );
    await stolenTokenRefused(b.token, 'of an ended session');
    expect((await call('GET', '/api/user/profile', { token: owner.token })).status).toBe(200);
    // Nor does it click: every game instance hears of the ended session within moments.
    const { ms: clicksEndedMs } = await waitFor(
      'the ended session refused on the click',
      async () => (await call('POST', '/api/game/click', { token: b.token })).status === 401,
      10_000,
    );
    figures.endedSessionClicksRefusedMs = clicksEndedMs;
    expect((await call('POST', '/api/game/click', { token: owner.token })).status).toBe(200);

    // An undo: the owner undoes, from the old inbox, a change the thief confirmed.
    const c: Player = await registerPlayer('ru');
    const moved = `${c.username}_moved@example.net`;
    expect(
      (await call('PUT', '/api/user/change-email', { token: c.token, body: { email: moved } })).status,
    ).toBe(200);
    const confirm = await mailedLink(mailUrl(), moved, 'confirm-email');
    const undo = await mailedLink(mailUrl(), c.email, 'undo-email-change');
    expect(
      (await call('POST', '/api/user/confirm-email', { body: { token: tokenOf(confirm) } })).status,
    ).toBe(200);
    const thief = await login(moved, c.password);
    expect(
      (await call('POST', '/api/user/undo-email-change', { body: { token: tokenOf(undo) } })).status,
    ).toBe(200);
    await stolenTokenRefused(thief.token, 'signed in before an undo');
  });

  it('finding 3: an address spelled with U+212A KELVIN SIGN is a change to confirm, not applied at once', async () => {
    const victim = await registerPlayer('rk');
    const lookalike = victim.email.replace(/k/g, '\u212A');
    expect(lookalike).not.toBe(victim.email);
    const answer = await call('PUT', '/api/user/change-email', {
      token: victim.token,
      body: { email: lookalike },
    });
    expect(answer.status).toBe(200);
    const profile = await call('GET', '/api/user/profile', { token: victim.token });
    invariant(
      'a look-alike address is not applied at once',
      profile.body.email === victim.email,
      profile.body,
    );
    expect(profile.body.pendingEmail).toBe(lookalike);
    await mailedLink(mailUrl(), victim.email, 'undo-email-change');
  });

  it('finding 4: a reset link requested before an email change dies when the change is confirmed', async () => {
    const owner = await registerPlayer('rl');
    expect((await call('POST', '/api/user/forgot-password', { body: { email: owner.email } })).status).toBe(
      202,
    );
    const oldReset = await mailedLink(mailUrl(), owner.email, 'reset-password');
    const moved = `${owner.username}_new@example.net`;
    expect(
      (await call('PUT', '/api/user/change-email', { token: owner.token, body: { email: moved } })).status,
    ).toBe(200);
    const confirm = await mailedLink(mailUrl(), moved, 'confirm-email');
    expect(
      (await call('POST', '/api/user/confirm-email', { body: { token: tokenOf(confirm) } })).status,
    ).toBe(200);
    const reset = await call('POST', '/api/user/reset-password', {
      body: { token: tokenOf(oldReset), newPassword: 'from-the-old-inbox' },
    });
    invariant(
      'a reset link mailed before a confirmed email change is refused',
      reset.status === 400,
      reset.text,
    );
    expect(reset.status).toBe(400);
  });

  it('a payout email named with a copy of the token moves no money there; the owner confirms from the account email, once; a reset spends the pending link', async () => {
    const victim = await registerPlayer('rp');
    // A verified account, so the only thing between the thief and the money is the payout confirmation.
    await verifyEmails([victim]);
    const thiefToken = victim.token;
    const thiefPaypal = `${victim.username}_thief@evil.example`;
    const asked = await call('POST', '/api/winners/setPaymentMethod', {
      token: thiefToken,
      body: { paypalEmail: thiefPaypal },
    });
    expect(asked.status).toBe(200);
    expect(asked.body.message).toMatch(/check your email/i);
    // The link goes to the account's email, never to the address named; the named address is told.
    const thiefLink = await mailedLink(mailUrl(), victim.email, 'confirm-payout-email');
    await waitFor('the notice to the new payout address', async () =>
      (await mailsTo(mailUrl(), thiefPaypal)).length > 0 ? true : undefined,
    );
    expect((await mailsTo(mailUrl(), thiefPaypal)).every((m) => !linkIn(m, 'confirm-payout-email'))).toBe(
      true,
    );
    const collect = await call('POST', '/api/winners/collect', { token: thiefToken });
    invariant(
      'a collect with an unconfirmed payout email is refused',
      collect.status === 409 && collect.body?.code === 'PAYOUT_EMAIL_PENDING',
      collect.text,
    );
    expect(collect.body.message).toMatch(/confirm/i);
    const profile = await call('GET', '/api/payments/profile', { token: thiefToken });
    expect(profile.body.paypalEmail).toBeNull();

    // The owner resets the password: the thief's pending link is spent.
    await resetFromMail(victim.email, 'owner-is-back-p');
    const late = await call('POST', '/api/winners/confirm-payout-email', {
      body: { token: tokenOf(thiefLink) },
    });
    if (late.status === 200) figures.pendingChangesAfterReset += 1;
    invariant('a payout email link mailed before a reset is spent by it', late.status === 400, late.text);

    // The owner names an address with the password, and confirms it from the account email, once.
    const owner = await login(victim.username, 'owner-is-back-p');
    const ownPaypal = `${victim.username}@paypal.example.com`;
    const own = await call('POST', '/api/winners/setPaymentMethod', {
      token: owner.token,
      body: { paypalEmail: ownPaypal, currentPassword: 'owner-is-back-p' },
    });
    expect(own.status).toBe(200);
    const { value: ownLink } = await waitFor('the owner confirm link', async () => {
      const link = await mailedLink(mailUrl(), victim.email, 'confirm-payout-email');
      return link !== thiefLink ? link : undefined;
    });
    const confirm = () =>
      call('POST', '/api/winners/confirm-payout-email', { body: { token: tokenOf(ownLink) } });
    expect((await confirm()).status).toBe(200);
    expect((await confirm()).status).toBe(400);
    expect((await call('GET', '/api/payments/profile', { token: owner.token })).body.paypalEmail).toBe(
      ownPaypal,
    );
  });
});
