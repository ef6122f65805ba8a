// Identity under faults and from many addresses: a restart of auth promotes nobody, and guessing from
// truly many addresses, or forging X-Forwarded-For past the request limit, gets nowhere. Each restarts a
// part or starts a gateway of its own, so they run in `npm run test:chaos`; identity.test.ts holds the rest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  extraGateway,
  figures,
  invariant,
  reportFigures,
  restartPart,
  stopPart,
  suite,
  violations,
} from '../src/context.js';
import { guess } from '../src/guessing.js';
import { call, grantRole, loginAdmin, registerPlayer, updateRole, type Player } from '../src/http.js';
import { tokenClaims } from '../src/tokens.js';

let admin: Player;

beforeAll(async () => {
  admin = await loginAdmin();
});
afterAll(reportFigures);

describe('accounts that changed behind a live token', () => {
  it('a restart of auth never promotes anyone: a demoted bootstrap admin stays demoted', async () => {
    const deputy = await grantRole(admin.token, await registerPlayer('deputy'), 'admin');
    const bootstrap = suite().admin;
    const demoted = await call('POST', '/api/admin/updateRole', {
      token: deputy.token,
      body: { email: bootstrap.email, role: 'standard' },
    });
    invariant(
      'the deputy demotes the bootstrap admin',
      demoted.status === 200,
      `${demoted.status} ${demoted.text.slice(0, 200)}`,
    );
    try {
      await stopPart('auth', 'SIGTERM');
      await restartPart('auth');
      figures.attacks += 1;
      const again = await loginAdmin();
      invariant(
        'after a restart the demoted bootstrap admin is still standard',
        tokenClaims(again.token).role === 'standard',
        tokenClaims(again.token),
      );
      const users = await call('GET', '/api/admin/users', { token: again.token });
      invariant('and cannot open admin routes', users.status === 403, users.status);
    } finally {
      // Leave the suite's admin as it was for the other files: the grant waits for a second admin, the
      // suite's deputy approves it (updateRole); the demotion is one admin's act.
      const restored = await updateRole(deputy.token, bootstrap.email, 'admin', deputy.password);
      invariant(
        'the bootstrap admin is an admin again',
        restored.status === 200 || restored.status === 202,
        restored.text,
      );
      admin = await loginAdmin();
      await call('POST', '/api/admin/updateRole', {
        token: admin.token,
        body: { email: deputy.email, role: 'standard' },
      });
    }
    expect(violations()).toEqual([]);
  });
});

describe('password guessing and the per-address limit', () => {
  it('from truly many addresses (behind a trusted proxy), the account limit still cuts guessing off', async () => {
    // A gateway that trusts X-Forwarded-For, as one behind a load balancer does: each guess comes from
    // its own address, so only the per-account limit (50 failures a window) stands in the way.
    const trusting = await extraGateway({ TRUST_PROXY: 'loopback', RATE_LIMIT_PER_IP: '0' });
    const target = await registerPlayer('botnet');
    const { guesses, locked } = await guess(target, 70, trusting);
    figures.bruteForceGuessesBeforeLock = guesses;
    invariant('guessing from many addresses is cut off', locked, guesses);
    invariant('at most 50 guesses per window', guesses <= 50, guesses);
    const right = await call('POST', '/api/user/login', {
      baseUrl: trusting,
      body: { emailOrUsername: target.username, password: target.password },
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    invariant(
      'a locked account refuses even the right password, from any address, for now',
      right.status === 429,
      right.status,
    );
    expect(violations()).toEqual([]);
  });

  it('the per-address request limit is not escaped by forging X-Forwarded-For', async () => {
    const limited = await extraGateway({ RATE_LIMIT_PER_IP: '20' });
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      figures.attacks += 1;
      statuses.push(
        (
          await call('GET', '/api/game/rules', {
            baseUrl: limited,
            headers: { 'x-forwarded-for': `192.0.2.${i + 1}` },
          })
        ).status,
      );
    }
    invariant(
      'requests past the limit are refused with 429',
      statuses.filter((s) => s === 429).length >= 10,
      statuses,
    );
    invariant(
      'the limit never fails with a 5xx',
      statuses.every((s) => s === 200 || s === 429),
      statuses,
    );
    expect(violations()).toEqual([]);
  });
});
