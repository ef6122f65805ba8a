// Authority from outside, on the running system: every internal route of every service asks who calls
// (the route catalogue, walked), a demoted admin's token reads no admin or money view, the payout email
// confirmation cannot be minted by a caller that is not auth and no mail names its request, and the
// payout email request is under the quota of every user-triggered mail.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  freshAuthorityRoutes,
  INTERNAL_ROUTES,
  type InternalRouteContract,
  type Service,
} from '@omc/contracts';
import { mailsTo } from '@omc/infra';
import { generateTokenKeys, signedCallHeaders } from '@omc/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { reportFigures, suite } from '../src/context.js';
import { query } from '../src/db.js';
import {
  call,
  grantRole,
  loginAdmin,
  registerPlayer,
  uniqueName,
  waitFor,
  type Answer,
} from '../src/http.js';
import { tokenClaims } from '../src/tokens.js';

afterAll(reportFigures);

const SERVICES: readonly Service[] = ['auth', 'game', 'payments'];
const baseUrlOf = (route: InternalRouteContract) =>
  suite().callUrls[route.listener === 'internal' ? 'game:internal' : route.service];
/** A refusal by the caller check itself (not by the route behind it). */
const callerRefusal = (answer: Answer) =>
  (answer.status === 401 || answer.status === 403) &&
  typeof answer.body?.message === 'string' &&
  answer.body.message.startsWith('Internal route');

describe('internal routes prove who calls', () => {
  it('every internal route answers 401 without a credential, 403 to a caller its contract does not list', async () => {
    const { serviceKeys } = suite();
    const rows: string[] = [];
    let wrong = 0;
    for (const route of INTERNAL_ROUTES) {
      const send = (headers: Record<string, string> = {}) =>
        call(route.method, route.path, {
          baseUrl: baseUrlOf(route),
          headers,
          ...(route.method === 'GET' ? {} : { body: {} }),
        });
      const none = await send();
      // A listed caller's name, signed with a key that is not its own.
      const forged = await send(
        signedCallHeaders(route.callers[0]!, generateTokenKeys().privateKey, route.service),
      );
      const unlisted: string[] = [];
      let ok = none.status === 401 && forged.status === 401;
      for (const caller of SERVICES.filter((s) => !route.callers.includes(s))) {
        const answer = await send(signedCallHeaders(caller, serviceKeys[caller].privateKey, route.service));
        unlisted.push(`${caller} ${answer.status}`);
        ok &&= answer.status === 403;
      }
      // A listed caller passes the check (what the route then says is its own business).
      const listed = await send(
        signedCallHeaders(route.callers[0]!, serviceKeys[route.callers[0]!].privateKey, route.service),
      );
      ok &&= !callerRefusal(listed);
      if (!ok) wrong += 1;
      rows.push(
        `${ok ? 'ok  ' : 'FAIL'} ${route.method} ${route.path} (${route.service}): none ${none.status}, forged ${forged.status}, ${unlisted.join(', ')}, listed ${route.callers[0]} ${listed.status}`,
      );
    }
    console.log(`internal routes and their callers:\n${rows.join('\n')}`);
    expect(wrong, rows.join('\n')).toBe(0);
  });

  it("the payout email's link cannot be minted without auth's credential, and the mail to the new address names no request", async () => {
    const { callUrls, mailUrl, serviceKeys, logsDir } = suite();
    const player = await registerPlayer('mint');
    const userId = tokenClaims(player.token).sub as string;
    const thief = `${uniqueName('thief')}@example.com`;
    const asked = await call('POST', '/api/winners/setPaymentMethod', {
      token: player.token,
      body: { paypalEmail: thief },
    });
    expect(asked.status, asked.text).toBe(200);
    const { value: notice } = await waitFor('the notice to the new payout address', async () =>
      (await mailsTo(mailUrl, thief)).at(-1),
    );
    const [request] = await query<{ id: string }>(
      'payments',
      'select id from payout_email_changes where user_id = $1 order by created_at desc limit 1',
      [userId],
    );
    expect(request).toBeDefined();
    const requestId = request!.id;
    expect(JSON.stringify(notice.headers ?? {})).not.toContain(requestId);
    expect(readFileSync(join(logsDir, 'auth.log'), 'utf8')).not.toContain(requestId);

    const mint = (headers: Record<string, string> = {}) =>
      call('POST', `/internal/payout-email/${requestId}/token`, { baseUrl: callUrls.payments, headers });
    expect((await mint()).status).toBe(401);
    expect((await mint(signedCallHeaders('game', serviceKeys.game.privateKey, 'payments'))).status).toBe(403);
  });
});

describe('authority is read fresh', () => {
  it("a demoted admin's token is refused on every admin and money view at once", async () => {
    const root = await loginAdmin();
    const player = await grantRole(root.token, await registerPlayer('demoted'), 'admin');
    const userId = tokenClaims(player.token).sub as string;
    const view = await call('GET', `/api/admin/purchases?userId=${userId}`, { token: player.token });
    expect(view.status, view.text).toBe(200);
    const demoted = await call('POST', '/api/admin/updateRole', {
      token: root.token,
      body: { email: player.email, role: 'standard' },
    });
    expect([200, 202]).toContain(demoted.status);

    const rows: string[] = [];
    for (const route of freshAuthorityRoutes().filter((r) => r.auth === 'admin')) {
      const path = route.method === 'GET' && route.query ? `${route.path}?userId=${userId}` : route.path;
      const answer = await call(route.method, path, {
        token: player.token,
        ...(route.method === 'GET' ? {} : { body: {} }),
      });
      if (answer.status !== 401 && answer.status !== 403)
        rows.push(`${route.method} ${route.path}: ${answer.status}`);
    }
    expect(rows, `answered the demoted admin's old token:\n${rows.join('\n')}`).toEqual([]);
  });
});

describe('every mail a user can trigger is under one quota', () => {
  it('the payout email request: past the quota, 429 with Retry-After naming the limit, and no more mail', async () => {
    const { mailUrl } = suite();
    const player = await registerPlayer('quota');
    const payees = Array.from({ length: 15 }, () => `${uniqueName('payee')}@example.com`);
    const answers: Answer[] = [];
    for (const paypalEmail of payees)
      answers.push(
        await call('POST', '/api/winners/setPaymentMethod', { token: player.token, body: { paypalEmail } }),
      );
    const accepted = payees.filter((_, i) => answers[i]!.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(accepted.length + refused.length, answers.map((a) => `${a.status} ${a.text}`).join('\n')).toBe(15);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(refused[0]!.body.message).toMatch(/at most \d+/);
    // Each accepted request told its new address; a refused one mailed nobody.
    await waitFor('the notices of the accepted requests', async () => {
      for (const payee of accepted) if ((await mailsTo(mailUrl, payee)).length === 0) return undefined;
      return true;
    });
    for (const payee of payees.filter((p) => !accepted.includes(p)))
      expect(await mailsTo(mailUrl, payee), payee).toEqual([]);
  });
});
