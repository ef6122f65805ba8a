// Brute force: per account (from one IP, and from many), per IP, registrations per IP, and lock-outs
// that end by themselves. Windows and lock-outs are shortened by configuration.
import { ErrorBody, LoginResponse } from '@omc/contracts';
import { eventually } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, freshIp, login, newUser, register, startAuth, type AuthHarness } from './support.js';

const LOCKOUT_MS = 1500;

describe('rate limits', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth({
      LOGIN_WINDOW_MS: '60000',
      LOGIN_LOCKOUT_MS: String(LOCKOUT_MS),
      LOGIN_MAX_FAILURES_PER_ACCOUNT_IP: '3',
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '6',
      LOGIN_MAX_FAILURES_PER_IP: '5',
      REGISTER_MAX_PER_IP: '3',
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  const expect429 = (response: Awaited<ReturnType<typeof login>>, pattern: RegExp) => {
    expect(response.statusCode).toBe(429);
    expect(ErrorBody.parse(response.json()).message).toMatch(pattern);
    expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  };

  it('locks an account for the attacking IP after its failures, even for the right password, then lets it in when the lock-out ends', async () => {
    const user = await register(h.app);
    const ip = freshIp();
    for (let i = 0; i < 3; i++)
      expect((await login(h.app, user.username, 'wrong-pass', ip)).statusCode).toBe(401);
    expect429(
      await login(h.app, user.username, user.password, ip),
      /Too many failed logins for this account\. Try again in \d+ seconds/,
    );
    expect429(await login(h.app, user.email, 'wrong-pass', ip), /this account/);
    // The real user on another network is not locked out by this attacker.
    expect((await login(h.app, user.username, user.password, freshIp())).statusCode).toBe(200);
    // The lock-out ends by itself; attempts during it did not extend it.
    const ok = await eventually(
      async () => (await login(h.app, user.username, user.password, ip)).statusCode === 200,
      'lock-out to end',
      LOCKOUT_MS * 4,
    );
    expect(ok).toBe(true);
  });

  it('locks the account for everyone after failures from many IPs, for a bounded time', async () => {
    const user = await register(h.app);
    for (let i = 0; i < 6; i++)
      expect((await login(h.app, user.username, 'wrong-pass', freshIp())).statusCode).toBe(401);
    expect429(await login(h.app, user.username, user.password, freshIp()), /this account/);
    await eventually(
      async () => (await login(h.app, user.username, user.password, freshIp())).statusCode === 200,
      'account lock-out to end',
      LOCKOUT_MS * 4,
    );
  });

  it('limits failures per IP across accounts', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++)
      expect((await login(h.app, `someone_${i}`, 'wrong-pass', ip)).statusCode).toBe(401);
    const user = await register(h.app);
    expect429(await login(h.app, user.username, user.password, ip), /from your network/);
    expect((await login(h.app, user.username, user.password, freshIp())).statusCode).toBe(200);
  });

  it('counts the address the gateway added, not one the client wrote into X-Forwarded-For', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) {
      const spoofed = `${freshIp()}, ${ip}`;
      expect((await login(h.app, `spoof_${i}`, 'wrong-pass', spoofed)).statusCode).toBe(401);
    }
    expect((await login(h.app, 'spoof_x', 'wrong-pass', `${freshIp()}, ${ip}`)).statusCode).toBe(429);
  });

  it('treats unknown names like real accounts: the same 401s, then the same 429', async () => {
    const ip = freshIp();
    const answers: number[] = [];
    for (let i = 0; i < 4; i++) answers.push((await login(h.app, 'ghost_user', 'wrong-pass', ip)).statusCode);
    expect(answers).toEqual([401, 401, 401, 429]);
  });

  it('a success clears the failures counted for that account and IP', async () => {
    const user = await register(h.app);
    const ip = freshIp();
    // Four failures in all: past the account-and-IP limit of 3 only if the success did not reset it.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 2; i++)
        expect((await login(h.app, user.username, 'wrong-pass', ip)).statusCode).toBe(401);
      LoginResponse.parse((await login(h.app, user.username, user.password, ip)).json());
    }
  });

  it('limits wrong current passwords on change-password like logins', async () => {
    const user = await register(h.app);
    const ip = freshIp();
    const change = (currentPassword: string) =>
      h.app.inject({
        method: 'PUT',
        url: '/api/user/change-password',
        headers: { ...bearer(user.token), 'x-forwarded-for': ip },
        payload: { currentPassword, newPassword: 'whatever-new' },
      });
    for (let i = 0; i < 3; i++) expect((await change('wrong-pass')).statusCode).toBe(400);
    expect((await change(user.password)).statusCode).toBe(429);
  });

  it('limits registrations per IP', async () => {
    const ip = freshIp();
    for (let i = 0; i < 3; i++) await register(h.app, newUser(), ip);
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/user/register',
      payload: newUser(),
      headers: { 'x-forwarded-for': ip },
    });
    expect429(response, /Too many registrations/);
  });
});

describe('rate limits: concurrency cannot widen a limit: each attempt is counted before the password is checked', () => {
  // A lock-out long enough that none ends during a flood, however slow the machine: an ended lock-out
  // rightly grants a new allowance, which would blur what these tests count.
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth({
      LOGIN_WINDOW_MS: '600000',
      LOGIN_LOCKOUT_MS: '600000',
      LOGIN_MAX_FAILURES_PER_ACCOUNT_IP: '3',
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '6',
      LOGIN_MAX_FAILURES_PER_IP: '5',
      REGISTER_MAX_PER_IP: '3',
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Sends `total` attempts, `parallel` at a time, and returns the statuses. */
  async function flood(total: number, parallel: number, attempt: () => Promise<{ statusCode: number }>) {
    const statuses: number[] = [];
    for (let sent = 0; sent < total; sent += parallel) {
      const batch = await Promise.all(Array.from({ length: Math.min(parallel, total - sent) }, attempt));
      statuses.push(...batch.map((r) => r.statusCode));
    }
    return statuses;
  }

  it('200 wrong passwords for one account, 100 at a time from one address: at most its allowance is evaluated', async () => {
    const user = await register(h.app);
    const ip = freshIp();
    const statuses = await flood(200, 100, () => login(h.app, user.username, 'wrong-pass', ip));
    const evaluated = statuses.filter((s) => s === 401).length;
    expect(evaluated).toBeLessThanOrEqual(3);
    expect(evaluated + statuses.filter((s) => s === 429).length).toBe(200);
  });

  it('200 wrong passwords from 200 addresses, 100 at a time: at most the account allowance is evaluated', async () => {
    const user = await register(h.app);
    const statuses = await flood(200, 100, () => login(h.app, user.username, 'wrong-pass', freshIp()));
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(6);
  });

  it('wrong current passwords on change-password, 50 at once: at most the allowance is evaluated', async () => {
    const user = await register(h.app);
    const ip = freshIp();
    const statuses = await flood(50, 50, () =>
      h.app.inject({
        method: 'PUT',
        url: '/api/user/change-password',
        headers: { ...bearer(user.token), 'x-forwarded-for': ip },
        payload: { currentPassword: 'wrong-pass', newPassword: 'whatever-new' },
      }),
    );
    expect(statuses.filter((s) => s === 400).length).toBeLessThanOrEqual(3);
  });

  it('a right password is not counted against the account', async () => {
    const user = await register(h.app);
    const ip = freshIp();
    for (let i = 0; i < 10; i++)
      expect((await login(h.app, user.username, user.password, ip)).statusCode).toBe(200);
    expect((await login(h.app, user.username, 'wrong-pass', ip)).statusCode).toBe(401);
  });

  it('registrations from one address, 20 at once: never more than the limit', async () => {
    const ip = freshIp();
    const statuses = await flood(20, 20, () =>
      h.app.inject({
        method: 'POST',
        url: '/api/user/register',
        payload: newUser(),
        headers: { 'x-forwarded-for': ip },
      }),
    );
    expect(statuses.filter((s) => s === 201).length).toBe(3);
  });

  it('counts an IPv6 /64 as one address: its addresses share the registrations budget', async () => {
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:1`;
    const statuses: number[] = [];
    for (let i = 1; i <= 4; i += 1) {
      const answer = await h.app.inject({
        method: 'POST',
        url: '/api/user/register',
        payload: newUser(),
        headers: { 'x-forwarded-for': `${prefix}::${i.toString(16)}` },
      });
      statuses.push(answer.statusCode);
    }
    expect(statuses).toEqual([201, 201, 201, 429]);
  });
});
