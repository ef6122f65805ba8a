// Nobody acts as someone else: bad tokens on every protected route, stale roles, refresh-token theft and
// guessing passwords, all through the gateway (identity.chaos.test.ts: a restart of auth, and guessing
// from many addresses).
import { ROUTES, UNLIMITED_CLICKS } from '@omc/contracts';
import { eventually } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gameProfile, profile, untilGameKnows } from '../src/actions.js';
import { figures, invariant, reportFigures, suite, violations } from '../src/context.js';
import {
  call,
  judged,
  grantRole,
  updateRole,
  login,
  loginAdmin,
  refreshCookie,
  registerPlayer,
  sleep,
  type Player,
} from '../src/http.js';
import { guess } from '../src/guessing.js';
import { VALID_BODIES } from '../src/samples.js';
import {
  confusedToken,
  forgedToken,
  realToken,
  tamperedToken,
  tokenClaims,
  unsignedToken,
} from '../src/tokens.js';

let admin: Player;
let player: Player;

beforeAll(async () => {
  admin = await loginAdmin();
  player = await registerPlayer('id');
});
afterAll(reportFigures);

const protectedRoutes = ROUTES.filter((r) => r.auth === 'user' || r.auth === 'admin');

const sampleBody = (path: string): unknown => VALID_BODIES[path];

describe('tokens nobody was issued', () => {
  it('are refused on every protected route with 401 and a message', async () => {
    const realAdmin = tokenClaims(admin.token);
    const cases: [string, string | undefined][] = [
      ['no token', undefined],
      ['garbage', 'not-a-jwt'],
      ['alg none', unsignedToken({ sub: realAdmin.sub, username: realAdmin.username })],
      ['forged with another key', await forgedToken({ sub: realAdmin.sub, username: realAdmin.username })],
      [
        'HS256 with the public key as secret',
        await confusedToken({ sub: realAdmin.sub, username: realAdmin.username }),
      ],
      [
        'expired',
        await realToken({
          sub: tokenClaims(player.token).sub,
          username: player.username,
          role: 'standard',
          exp: Math.floor(Date.now() / 1000) - 60,
        }),
      ],
      ['own token with role edited to admin', tamperedToken(player.token, { role: 'admin' })],
      ['own token with subject edited to the admin', tamperedToken(player.token, { sub: realAdmin.sub })],
    ];
    for (const route of protectedRoutes) {
      for (const [name, token] of cases) {
        figures.attacks += 1;
        const body = sampleBody(route.path);
        const answer = await judged(route.method, route.path, {
          token,
          ...(body === undefined ? {} : { body }),
        });
        invariant(
          `${name} on ${route.method} ${route.path} is 401`,
          answer.status === 401,
          `${answer.status} ${answer.text.slice(0, 200)}`,
        );
        invariant(
          `${name} on ${route.method} ${route.path} names the problem`,
          typeof answer.body?.message === 'string' && answer.body.message.length > 0,
          answer.text.slice(0, 200),
        );
      }
    }
    expect(violations()).toEqual([]);
  });
});

describe('roles', () => {
  it('a grant of admin or superuser by one admin changes nothing until the second admin approves', async () => {
    for (const role of ['admin', 'superuser'] as const) {
      const target = await registerPlayer(`two_${role}`);
      const fresh = await loginAdmin();
      const asked = await judged('POST', '/api/admin/updateRole', {
        token: fresh.token,
        body: { email: target.email, role },
      });
      figures.attacks += 1;
      invariant(
        `a grant of ${role} by one admin is a 202 request, pending`,
        asked.status === 202 && asked.body?.approval?.status === 'pending',
        `${asked.status} ${asked.text.slice(0, 200)}`,
      );
      const meanwhile = await profile(target);
      invariant(`the ${role} grant waits: still standard`, meanwhile?.role === 'standard', meanwhile);
      const own = await judged('POST', `/api/admin/approvals/${asked.body.approval.id}/approve`, {
        token: fresh.token,
        body: {},
      });
      invariant(`the admin who asked cannot approve (${own.status})`, own.status === 403, own.text);
      const { deputy } = suite();
      const approver = await login(deputy.username, deputy.password);
      const approved = await judged('POST', `/api/admin/approvals/${asked.body.approval.id}/approve`, {
        token: approver.token,
        body: {},
      });
      invariant(
        `the deputy's approval makes the ${role} grant (${approved.status})`,
        approved.status === 200 || approved.status === 202,
        approved.text.slice(0, 200),
      );
      await eventually(async () => (await profile(target))?.role === role, `${target.username} is ${role}`);
    }
    expect(violations()).toEqual([]);
  });

  it('a standard user cannot reach admin routes nor raise their own role', async () => {
    for (const route of ROUTES.filter((r) => r.auth === 'admin')) {
      figures.attacks += 1;
      const body =
        route.path === '/api/admin/updateRole'
          ? { email: player.email, role: 'admin' }
          : sampleBody(route.path);
      const answer = await judged(route.method, route.path, {
        token: player.token,
        ...(body === undefined ? {} : { body }),
      });
      invariant(
        `standard user on ${route.method} ${route.path} is 403`,
        answer.status === 403,
        `${answer.status} ${answer.text.slice(0, 200)}`,
      );
    }
    // Extra fields at sign-up do not choose a role.
    const sneaky = await judged('POST', '/api/user/register', {
      body: {
        username: `role_${Date.now() % 1e8}`,
        email: `role_${Date.now()}@example.com`,
        password: 'secret-password-1',
        role: 'admin',
      },
    });
    figures.attacks += 1;
    if (sneaky.status === 200 || sneaky.status === 201)
      invariant(
        'a role sent at sign-up is ignored',
        tokenClaims(sneaky.body.token).role === 'standard',
        tokenClaims(sneaky.body.token),
      );
    else
      invariant(
        'a role sent at sign-up is refused with a 4xx',
        sneaky.status >= 400 && sneaky.status < 500,
        sneaky.status,
      );
    const me = await judged('GET', '/api/user/profile', { token: player.token });
    invariant('the player is still standard', me.body?.role === 'standard', me.body);
    expect(violations()).toEqual([]);
  });

  it('a role taken away takes effect on the next request, even with the old token', async () => {
    const promoted = await grantRole(admin.token, await registerPlayer('demote'), 'admin');
    const adminsToken = promoted.token;
    expect((await judged('GET', '/api/admin/users', { token: adminsToken })).status).toBe(200);
    await grantRole(admin.token, promoted, 'standard');
    figures.attacks += 1;
    const stale = await judged('GET', '/api/admin/users', { token: adminsToken });
    invariant(
      "a demoted admin's old token no longer opens admin routes",
      stale.status === 403,
      `${stale.status} ${stale.text.slice(0, 200)}`,
    );

    // A demoted superuser clicks on their own balance again, whatever their old token says.
    const superuser = await grantRole(admin.token, await registerPlayer('desuper'), 'superuser');
    await untilGameKnows(superuser);
    const superToken = superuser.token;
    await grantRole(admin.token, superuser, 'standard');
    await sleep(1500); // the role change reaches the game by event
    const before = await gameProfile({ ...superuser, token: superToken });
    invariant('a demoted superuser is not unlimited any more', before?.hasInfiniteClicks === false, before);
    const spent = await judged('POST', '/api/game/click', { token: superToken });
    // A click that lands on a milestone also earns its free clicks (MILESTONES).
    const reward = spent.body?.milestone?.freeClicks ?? 0;
    if (spent.status === 200)
      invariant(
        "a demoted superuser's click is paid from their balance",
        before !== undefined && spent.body.freeClicks === before.freeClicks - 1 + reward,
        { before, spent: spent.body },
      );
    expect(violations()).toEqual([]);
  });
});

describe('read-your-writes for role changes', () => {
  it("once updateRole has answered, the target's very next request sees the new role, in the game and in the profile", async () => {
    const target = await registerPlayer('ryw');
    await untilGameKnows(target);
    const iterations = 20;
    const stale: string[] = [];
    let confirmed = 0;
    for (let i = 0; i < iterations; i += 1) {
      const raised = i % 2 === 0 ? 'superuser' : 'admin';
      for (const role of [raised, 'standard'] as const) {
        figures.attacks += 1;
        const changed = await updateRole(admin.token, target.email, role);
        invariant(
          `updateRole to ${role} is 200, or 202 when the game did not confirm it in time`,
          changed.status === 200 || changed.status === 202,
          `${changed.status} ${changed.text.slice(0, 200)}`,
        );
        // A 202 promises no read-your-writes (docs/auth.md): the game had not confirmed within
        // UPSTREAM_TIMEOUT_MS, as on a loaded machine. The next change starts from a settled role.
        if (changed.status !== 200) {
          await eventually(
            async () => (await profile(target))?.hasInfiniteClicks === (role !== 'standard'),
            'the unconfirmed role change converged',
          );
          continue;
        }
        confirmed += 1;
        // The very next request, with the token issued before the change: no wait, no new sign-in.
        const clicked = await judged('POST', '/api/game/click', { token: target.token });
        const free = clicked.status === 200 && clicked.body.freeClicks === UNLIMITED_CLICKS;
        if (role !== 'standard' && !free)
          stale.push(
            `#${i} promoted to ${role}, next click: ${clicked.status} ${clicked.text.slice(0, 120)}`,
          );
        if (role === 'standard' && free) stale.push(`#${i} demoted from ${raised}, next click still free`);
        const mine = await profile(target);
        if (mine?.hasInfiniteClicks !== (role !== 'standard'))
          stale.push(`#${i} ${role}: profile hasInfiniteClicks ${mine?.hasInfiniteClicks}`);
        if ((mine?.adminBalance !== null) !== (role === 'admin'))
          stale.push(`#${i} ${role}: profile adminBalance ${mine?.adminBalance}`);
      }
    }
    figures.roleChangesChecked += confirmed;
    figures.staleRoleReads += stale.length;
    invariant(`a role change was confirmed (${confirmed} of ${iterations * 2})`, confirmed > 0, {
      confirmed,
    });
    invariant(
      `no request after a confirmed updateRole saw the old role (${confirmed} changes)`,
      stale.length === 0,
      stale.slice(0, 6),
    );
    expect(violations()).toEqual([]);
  });
});

describe('accounts that changed behind a live token', () => {
  it("a deleted account's still-valid token moves no money, at once", async () => {
    const gone = await registerPlayer('gone');
    await untilGameKnows(gone);
    const deleted = await judged('DELETE', '/api/user/delete-account', { token: gone.token });
    invariant(
      'delete-account answers 200',
      deleted.status === 200,
      `${deleted.status} ${deleted.text.slice(0, 200)}`,
    );
    for (const [method, path, body] of [
      ['POST', '/api/winners/setPaymentMethod', { paypalEmail: 'thief@example.com' }],
      ['POST', '/api/winners/collect', undefined],
      [
        'POST',
        '/api/payments/checkout',
        { paymentMethodNonce: 'fake-valid-nonce', amount: '0.99', idempotencyKey: `gone-${Date.now()}` },
      ],
    ] as const) {
      figures.attacks += 1;
      const answer = await judged(method, path, {
        token: gone.token,
        ...(body === undefined ? {} : { body }),
      });
      invariant(
        `the deleted account's token on ${path} is 401`,
        answer.status === 401,
        `${answer.status} ${answer.text.slice(0, 200)}`,
      );
    }
    expect(violations()).toEqual([]);
  });
});

describe('refresh tokens', () => {
  it('a rotated refresh token presented again ends the whole session family', async () => {
    const victim = await registerPlayer('refresh');
    const session = await login(victim.username, victim.password);
    expect(session.cookie).toBeDefined();
    const first = await judged('POST', '/api/user/refresh', { cookie: session.cookie });
    expect(first.status).toBe(200);
    const rotated = refreshCookie(first);
    expect(rotated).toBeDefined();
    // After the grace for racing tabs, the old cookie is a stolen copy.
    await sleep(Number(suite().env.REFRESH_REUSE_GRACE_MS) + 300);
    figures.attacks += 1;
    const replay = await judged('POST', '/api/user/refresh', { cookie: session.cookie });
    invariant('a replayed refresh token is refused', replay.status === 401, replay.status);
    const legit = await judged('POST', '/api/user/refresh', { cookie: rotated });
    invariant(
      'after a replay the family is revoked (the newer token fails too)',
      legit.status === 401,
      legit.status,
    );
    expect(violations()).toEqual([]);
  });

  it('many concurrent uses of one refresh token issue at most one new refresh token', async () => {
    const victim = await registerPlayer('race');
    const session = await login(victim.username, victim.password);
    figures.attacks += 8;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => call('POST', '/api/user/refresh', { cookie: session.cookie })),
    );
    const newCookies = new Set(
      answers.map(refreshCookie).filter((c): c is string => c !== undefined && !c.endsWith('=')),
    );
    invariant(
      'no 5xx under concurrent refreshes',
      answers.every((a) => a.status < 500 && a.status !== 0),
      answers.map((a) => a.status),
    );
    invariant('at most one new refresh token', newCookies.size <= 1, newCookies.size);
    expect(violations()).toEqual([]);
  });

  it('a refresh cookie that was never issued is refused', async () => {
    figures.attacks += 1;
    const answer = await judged('POST', '/api/user/refresh', { cookie: 'omc_refresh=made-up-token-value' });
    expect(answer.status).toBe(401);
    expect(answer.body.message).toBeTruthy();
  });
});

describe('password guessing and the per-address limit', () => {
  it('a forged X-Forwarded-For does not make new addresses: the account-and-address limit cuts guessing off', async () => {
    const target = await registerPlayer('brute');
    const { guesses, locked } = await guess(target, 20);
    invariant('guessing through the gateway is cut off', locked, guesses);
    invariant(
      'the gateway ignored the forged addresses (cut off at the per-address limit, 5)',
      guesses <= 5,
      guesses,
    );
    const right = await judged('POST', '/api/user/login', {
      body: { emailOrUsername: target.username, password: target.password },
    });
    invariant(
      'from the locked-out address, even the right password waits',
      right.status === 429,
      right.status,
    );
    expect(violations()).toEqual([]);
  });

  it('200 wrong passwords for one account, 100 at a time: no more evaluated than one lock window allows', async () => {
    const target = await registerPlayer('burst');
    const statuses: number[] = [];
    for (let wave = 0; wave < 2; wave++) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, () =>
          call('POST', '/api/user/login', {
            body: { emailOrUsername: target.username, password: 'wrong-password-1' },
          }),
        ),
      );
      figures.attacks += answers.length;
      statuses.push(...answers.map((a) => a.status));
    }
    const evaluated = statuses.filter((s) => s === 401).length;
    figures.concurrentGuessesPerLockWindow = evaluated;
    // 401: evaluated and wrong; 429: refused by the limit; 503: the guard could not ask Redis in time
    // (a machine short of CPU) and refused without evaluating, as it fails closed.
    invariant(
      'every concurrent guess is a 401, a 429 or a 503 (refused unevaluated)',
      statuses.every((s) => s === 401 || s === 429 || s === 503),
      statuses.filter((s) => s !== 401 && s !== 429 && s !== 503),
    );
    invariant(
      'at most the per-address allowance (5) is evaluated however many arrive at once',
      evaluated <= 5,
      evaluated,
    );
    expect(violations()).toEqual([]);
  });
});
