// A log reader learns nothing that opens an account: a whole account journey (register, verify the
// email, reset the password, change the email, undo the change), each mailed link opened in the web app
// as a browser does (GET /page?token=...) and then used, and afterwards every process's log is searched
// for every token, cookie and password the journey was given. None may be there.
import { linkIn, mailsTo, tokenOf } from '@omc/infra';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extraGateway, figures, invariant, reportFigures, suite } from '../src/context.js';
import { call, login, registerPlayer, sleep, uniqueName } from '../src/http.js';

afterAll(reportFigures);

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

describe('secrets in logs', () => {
  it('no token, cookie or password of a whole account journey is in any log', async () => {
    // A gateway that logs every request (the suite's own logs only warnings), as production does.
    const baseUrl = await extraGateway({ LOG_LEVEL: 'info' });
    const secrets = new Set<string>();
    const seen = new Set<string>();
    const keep = (...values: (string | undefined)[]) =>
      values.forEach((v) => v && v.length >= 8 && secrets.add(v));
    /** Opens the mailed link in the web app (the gateway serves the page) and uses its token. */
    const follow = async (page: string, route: string, token: string, body: object = {}) => {
      keep(token, encodeURIComponent(token));
      const opened = await call('GET', `/${page}?token=${encodeURIComponent(token)}`, { baseUrl });
      expect(opened.status, `open /${page}`).toBeGreaterThan(0);
      const used = await call('POST', route, { baseUrl, body: { token, ...body } });
      expect(used.status, `${route}: ${used.text}`).toBe(200);
      return used;
    };

    // Register and verify.
    const player = await registerPlayer('logs');
    keep(player.token, player.cookie, player.password);
    await follow(
      'verify-email',
      '/api/user/verify-email',
      await mailedToken(player.email, 'verify-email', seen),
    );

    // Forget the password and reset it.
    const forgot = await call('POST', '/api/user/forgot-password', {
      baseUrl,
      body: { email: player.email },
    });
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

    // Let the processes write what they log about the last requests and the mail sent.
    await sleep(1500);
    const logs = readdirSync(suite().logsDir).filter((f) => f.endsWith('.log'));
    expect(logs.length).toBeGreaterThan(0);
    const found: string[] = [];
    for (const file of logs) {
      const text = readFileSync(join(suite().logsDir, file), 'utf8');
      for (const secret of secrets)
        if (text.includes(secret)) found.push(`${file}: ${secret.slice(0, 12)}...`);
    }
    figures.tokensInLogs += found.length;
    figures.secretsSearched += secrets.size;
    invariant('no token, cookie or password of the journey is in any log', found.length === 0, found);
    expect(found).toEqual([]);
  });
});
