// Every way a session ends, against every route that takes an access token (the route catalogue,
// packages/contracts ROUTES), the click and a socket join, through the gateway: a copy of the ended
// session's access token is refused everywhere (401; 403 counts on an admin-only route, which a player's
// token never opens, and where it names the suspension that ended the session). One player per way; the
// matrix of answers not refused is printed and must be all 0.
import { ROUTES, SOCKET_CLIENT_OPTIONS, type RouteContract } from '@omc/contracts';
import { mailedLink, tokenOf } from '@omc/infra';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invariant, reportFigures, suite } from '../src/context.js';
import { judged, login, loginAdmin, registerPlayer, sleep, waitFor, type Player } from '../src/http.js';
import { watch, type Watcher } from '../src/sockets.js';
import { tokenClaims } from '../src/tokens.js';

afterAll(reportFigures);

/** The suite's grace for a racing tab's second use of a rotated refresh token (global-setup SUITE_ENV). */
const REUSE_GRACE_MS = 1000;

/** A body each route accepts, so a route that checks the body before the session still meets the check. */
const BODIES: Record<string, unknown> = {
  'PUT /api/user/change-language': { language: 'es' },
  'PUT /api/user/change-email': { email: 'thief-moves-here@example.net' },
  'PUT /api/user/change-password': { currentPassword: 'whatever-1', newPassword: 'thief-password-1' },
  'PUT /api/user/change-username': { username: 'thief_name' },
  'POST /api/admin/users/:id/suspend': { reason: 'matrix' },
  'POST /api/admin/users/:id/restore': { reason: 'matrix' },
  'POST /api/admin/updateRole': { email: 'nobody@example.com', role: 'admin' },
  'POST /api/payments/checkout': { paymentMethodNonce: 'fake-valid-nonce', amount: '0.99' },
  'POST /api/winners/setPaymentMethod': { paypalEmail: 'thief@evil.example' },
  'POST /api/admin/purchases/:id/refund': { reason: 'matrix' },
};

/** Every route that takes an access token; deleting the account last, as it would end the others. */
const TOKEN_ROUTES: RouteContract[] = ROUTES.filter((r) => r.auth === 'user' || r.auth === 'admin').sort(
  (a, b) => Number(a.path === '/api/user/delete-account') - Number(b.path === '/api/user/delete-account'),
);
const label = (route: RouteContract) => `${route.method} ${route.path}`;

/** The session whose access token a thief copied: its token, its refresh cookie, its id. */
interface Copied {
  player: Player;
  userId: string;
  sessionId: string;
  token: string;
  cookie: string;
}

interface Way {
  name: string;
  /** Ends the copied session, as its owner (or an admin, or the reuse of its refresh token) does. */
  end(copied: Copied): Promise<void>;
}

/** A refusal: 401; 403 on an admin-only route; or 403 naming the suspension that ended the session. */
function refused(
  route: RouteContract | 'socket',
  answer: { status: number; body?: { code?: unknown } },
): boolean {
  if (answer.status === 401) return true;
  if (answer.status !== 403) return false;
  return answer.body?.code === 'ACCOUNT_SUSPENDED' || (route !== 'socket' && route.auth === 'admin');
}

/** A socket join with `token`: resolves with the refusal's message, or undefined when it connected. */
function joinRefusal(token: string): Promise<string | undefined> {
  const socket = io(suite().gatewayUrl, {
    ...SOCKET_CLIENT_OPTIONS,
    auth: { token },
    reconnection: false,
    forceNew: true,
  });
  return new Promise((resolve) => {
    socket.on('connect', () => (socket.close(), resolve(undefined)));
    socket.on('connect_error', (error) => (socket.close(), resolve(error.message)));
  });
}

describe('a session ended any way is refused on every route, the click and a socket', () => {
  let adminToken: string;
  beforeAll(async () => {
    adminToken = (await loginAdmin()).token;
  });

  const expectOk = (answer: { status: number; text: string }, what: string) =>
    expect(answer.status, `${what}: ${answer.text}`).toBeLessThan(300);

  const ways: Way[] = [
    {
      name: 'logout',
      end: async (c) =>
        expectOk(await judged('POST', '/api/user/refresh/logout', { cookie: c.cookie }), 'logout'),
    },
    {
      name: 'logout, token only',
      // A client whose refresh cookie is gone: the access token names the session to end.
      end: async (c) =>
        expectOk(await judged('POST', '/api/user/refresh/logout', { token: c.token }), 'logout by token'),
    },
    {
      name: 'end one session',
      end: async (c) => {
        const owner = await login(c.player.username, c.player.password);
        expectOk(await judged('DELETE', `/api/user/sessions/${c.sessionId}`, { token: owner.token }), 'end');
      },
    },
    {
      name: 'sign out everywhere',
      end: async (c) => {
        const owner = await login(c.player.username, c.player.password);
        expectOk(await judged('DELETE', '/api/user/sessions', { token: owner.token }), 'sign out everywhere');
      },
    },
    {
      name: 'password change',
      end: async (c) => {
        const owner = await login(c.player.username, c.player.password);
        const body = { currentPassword: c.player.password, newPassword: 'owner-new-password-1' };
        expectOk(await judged('PUT', '/api/user/change-password', { token: owner.token, body }), 'change');
      },
    },
    {
      name: 'password reset',
      end: async (c) => {
        expectOk(
          await judged('POST', '/api/user/forgot-password', { body: { email: c.player.email } }),
          'forgot',
        );
        const link = await mailedLink(suite().mailUrl, c.player.email, 'reset-password');
        const body = { token: tokenOf(link), newPassword: 'owner-reset-password-1' };
        expectOk(await judged('POST', '/api/user/reset-password', { body }), 'reset');
      },
    },
    {
      name: 'email change undo',
      end: async (c) => {
        const moved = `${c.player.username}_moved@example.net`;
        // The copied session, signed in a moment ago, moves the address; the old inbox undoes it.
        expectOk(
          await judged('PUT', '/api/user/change-email', { token: c.token, body: { email: moved } }),
          'move',
        );
        const undo = await mailedLink(suite().mailUrl, c.player.email, 'undo-email-change');
        expectOk(
          await judged('POST', '/api/user/undo-email-change', { body: { token: tokenOf(undo) } }),
          'undo',
        );
      },
    },
    {
      name: 'refresh-token reuse',
      end: async (c) => {
        // The thief refreshes with the copied cookie; the owner's browser presents it again past the grace.
        expectOk(await judged('POST', '/api/user/refresh', { cookie: c.cookie }), 'refresh');
        await sleep(REUSE_GRACE_MS + 200);
        const reused = await judged('POST', '/api/user/refresh', { cookie: c.cookie });
        expect(reused.status).toBe(401);
      },
    },
    {
      name: 'suspension',
      end: async (c) => {
        const body = { reason: 'matrix test' };
        expectOk(
          await judged('POST', `/api/admin/users/${c.userId}/suspend`, { token: adminToken, body }),
          'suspend',
        );
      },
    },
    {
      name: 'account deletion',
      end: async (c) => {
        const owner = await login(c.player.username, c.player.password);
        expectOk(await judged('DELETE', '/api/user/delete-account', { token: owner.token }), 'delete');
      },
    },
  ];

  it('refuses the old token: ways x routes, 0 answers not refused', async () => {
    const columns = [...TOKEN_ROUTES.map(label), 'socket open', 'socket join'];
    const matrix = new Map<string, Map<string, number>>();
    const details: string[] = [];
    for (const way of ways) {
      const player = await registerPlayer('se');
      const claims = tokenClaims(player.token) as { sub: string; sid: string };
      const copied: Copied = {
        player,
        userId: claims.sub,
        sessionId: claims.sid,
        token: player.token,
        cookie: player.cookie!,
      };
      // Controls: the copy works before the end, on the click and on a socket.
      await waitFor(
        'the game to know the player',
        async () => (await judged('POST', '/api/game/click', { token: copied.token })).status === 200,
      );
      const open: Watcher = watch(copied.token);
      await waitFor('the socket to connect', async () => open.socket.connected);

      await way.end(copied);

      // The end reaches every service within moments (auth's outbox, then each instance's reader).
      await waitFor(
        `the click refused after ${way.name}`,
        async () => refused('socket', await judged('POST', '/api/game/click', { token: copied.token })),
        10_000,
      ).catch(() => undefined);
      await waitFor(`the socket closed after ${way.name}`, async () => !open.socket.connected, 10_000).catch(
        () => undefined,
      );
      const row = new Map<string, number>();
      for (const route of TOKEN_ROUTES) {
        const answer = await judged(route.method, route.path, {
          token: copied.token,
          body: BODIES[label(route)],
        });
        const ok = refused(route, answer);
        row.set(label(route), ok ? 0 : 1);
        if (!ok)
          details.push(`${way.name}: ${label(route)} answered ${answer.status} ${answer.text.slice(0, 120)}`);
      }
      row.set('socket open', open.socket.connected ? 1 : 0);
      if (open.socket.connected) details.push(`${way.name}: the open socket stayed connected`);
      open.close();
      const join = await joinRefusal(copied.token);
      row.set('socket join', join === undefined ? 1 : 0);
      if (join === undefined) details.push(`${way.name}: a socket joined with the old token`);
      matrix.set(way.name, row);
    }

    const notRefused = [...matrix.values()].reduce(
      (sum, row) => sum + [...row.values()].reduce((a, b) => a + b, 0),
      0,
    );
    const lines = [`answers not refused after the session ended (ways x routes), total ${notRefused}:`];
    columns.forEach((column, i) => lines.push(`  [${String(i + 1).padStart(2)}] ${column}`));
    const width = Math.max(...ways.map((w) => w.name.length));
    lines.push(`${''.padEnd(width)} ${columns.map((_, i) => String(i + 1).padStart(3)).join('')}`);
    for (const [name, row] of matrix)
      lines.push(
        `${name.padEnd(width)} ${columns.map((c) => String(row.get(c) ?? '-').padStart(3)).join('')}`,
      );
    console.log(lines.join('\n'));
    invariant('a token of an ended session is refused everywhere', notRefused === 0, details);
    expect(details).toEqual([]);
  }, 600_000);
});
