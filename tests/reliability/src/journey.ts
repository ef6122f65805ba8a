// A whole account journey as a player makes it through the gateway: register, verify the email from the
// mailed link, forget the password and reset it, change the email, confirm it from the new address and
// undo it from the old one. Each mailed link is opened in the web app as a browser does (GET
// /page?token=...) and then used. The leakage checks (logs, the bus, every table) run it and then search
// for what it was given.
import { caughtMails, linkIn, mailsTo, tokenOf } from '@omc/infra';
import { expect } from 'vitest';
import { suite } from './context.js';
import { call, login, registerPlayer, sleep, uniqueName } from './http.js';

export interface Journey {
  /** Every token, cookie and password the journey was given (8 characters or more). */
  secrets: Set<string>;
  /** The tokens of the mailed links the journey used. */
  mailedTokens: Set<string>;
  /** The addresses the journey's mail went to. */
  addresses: string[];
}

const PAGES = ['verify-email', 'reset-password', 'confirm-email', 'undo-email-change'];

/** Waits for a mail to `address` with a `page` link other than those already `seen`; returns its token. */
async function mailedToken(address: string, page: string, seen: Set<string>): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const links = (await mailsTo(suite().mailUrl, address)).map((m) => linkIn(m, page)).filter(Boolean);
    const fresh = links.map((l) => tokenOf(l!)).find((t) => t && !seen.has(t));
    if (fresh) {
      seen.add(fresh);
      return fresh;
    }
    if (Date.now() > deadline) throw new Error(`no new ${page} link mailed to ${address}`);
    await sleep(200);
  }
}

/** Runs the journey through the gateway at `baseUrl` (the suite's own by default). */
export async function accountJourney(prefix: string, baseUrl?: string): Promise<Journey> {
  const secrets = new Set<string>();
  const seen = new Set<string>();
  const keep = (...values: (string | undefined)[]) =>
    values.forEach((v) => v && v.length >= 8 && secrets.add(v));
  const follow = async (page: string, route: string, token: string, body: object = {}) => {
    keep(token, encodeURIComponent(token));
    const opened = await call('GET', `/${page}?token=${encodeURIComponent(token)}`, { baseUrl });
    expect(opened.status, `open /${page}`).toBeGreaterThan(0);
    const used = await call('POST', route, { baseUrl, body: { token, ...body } });
    expect(used.status, `${route}: ${used.text}`).toBe(200);
    return used;
  };

  // Register and verify.
  const player = await registerPlayer(prefix);
  keep(player.token, player.cookie, player.password);
  await follow(
    'verify-email',
    '/api/user/verify-email',
    await mailedToken(player.email, 'verify-email', seen),
  );

  // Forget the password and reset it.
  const forgot = await call('POST', '/api/user/forgot-password', { baseUrl, body: { email: player.email } });
  expect(forgot.status).toBe(202);
  const newPassword = `new-${uniqueName('pw')}-password`;
  keep(newPassword);
  await follow(
    'reset-password',
    '/api/user/reset-password',
    await mailedToken(player.email, 'reset-password', seen),
    { newPassword },
  );
  const session = await login(player.username, newPassword);
  keep(session.token, session.cookie);

  // Change the email, confirm from the new address, undo from the old one.
  const newEmail = `${uniqueName('moved')}@example.com`;
  const change = await call('PUT', '/api/user/change-email', {
    baseUrl,
    token: session.token,
    body: { email: newEmail, currentPassword: newPassword },
  });
  expect(change.status, change.text).toBe(200);
  await follow(
    'confirm-email',
    '/api/user/confirm-email',
    await mailedToken(newEmail, 'confirm-email', seen),
  );
  // The notice to the old address carries the undo link.
  await follow(
    'undo-email-change',
    '/api/user/undo-email-change',
    await mailedToken(player.email, 'undo-email-change', seen),
  );
  return { secrets, mailedTokens: seen, addresses: [player.email, newEmail] };
}

/** Every link token in every mail the catcher delivered to `addresses`. */
export async function tokensMailedTo(addresses: string[]): Promise<Set<string>> {
  const wanted = new Set(addresses.map((a) => a.toLowerCase()));
  const tokens = new Set<string>();
  for (const mail of await caughtMails(suite().mailUrl)) {
    if (!mail.to.some((to) => wanted.has(to.address.toLowerCase()))) continue;
    for (const page of PAGES) {
      const link = linkIn(mail, page);
      if (link && tokenOf(link)) tokens.add(tokenOf(link));
    }
  }
  return tokens;
}
