// The account's sessions as its owner sees them: listed with device, address and last use, the current
// one marked; ending one (or all others) revokes its refresh family at once; nobody ends another's.
import { ErrorBody, MessageResponse, MessageWithTokenResponse, SessionsResponse } from '@omc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, freshIp, refreshCookieOf, register, startAuth, type AuthHarness } from './support.js';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

describe('active sessions', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth();
  });
  afterAll(async () => {
    await h?.close();
  });

  const signIn = async (user: { username: string; password: string }, userAgent: string, ip = freshIp()) => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/user/login',
      payload: { emailOrUsername: user.username, password: user.password },
      headers: { 'x-forwarded-for': ip, 'user-agent': userAgent },
    });
    expect(response.statusCode).toBe(200);
    return { token: response.json().token as string, refresh: refreshCookieOf(response)!, ip };
  };
  const list = async (token: string) => {
    const response = await h.app.inject({ method: 'GET', url: '/api/user/sessions', headers: bearer(token) });
    expect(response.statusCode).toBe(200);
    return SessionsResponse.parse(response.json()).sessions;
  };
  const refresh = (cookie: string, ip = freshIp()) =>
    h.app.inject({
      method: 'POST',
      url: '/api/user/refresh',
      cookies: { omc_refresh: cookie },
      headers: { 'x-forwarded-for': ip },
    });

  it('lists every session with its device, address and last use, and marks the current one', async () => {
    const user = await register(h.app);
    const laptop = await signIn(user, FIREFOX);
    const phone = await signIn(user, IPHONE);
    const sessions = await list(laptop.token);
    expect(sessions).toHaveLength(3);
    const current = sessions.filter((s) => s.current);
    expect(current).toHaveLength(1);
    expect(current[0]!.device).toBe('Firefox 128 on Linux');
    expect(current[0]!.ip).toBe(laptop.ip);
    const mobile = sessions.find((s) => s.ip === phone.ip)!;
    expect(mobile.device).toMatch(/Mobile Safari 17 on iOS \(iPhone\)/);
    expect(Date.parse(mobile.lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
    // Most recently used first; a refresh moves a session to the top.
    expect(sessions[0]!.ip).toBe(phone.ip);
    expect((await refresh(laptop.refresh, laptop.ip)).statusCode).toBe(200);
    expect((await list(phone.token))[0]!.ip).toBe(laptop.ip);
  });

  it('ends one session: its refresh token stops working at once, the others go on', async () => {
    const user = await register(h.app);
    const laptop = await signIn(user, FIREFOX);
    const phone = await signIn(user, IPHONE);
    const target = (await list(laptop.token)).find((s) => s.ip === phone.ip)!;
    const ended = await h.app.inject({
      method: 'DELETE',
      url: `/api/user/sessions/${target.id}`,
      headers: bearer(laptop.token),
    });
    expect(ended.statusCode).toBe(200);
    MessageResponse.parse(ended.json());
    expect((await refresh(phone.refresh)).statusCode).toBe(401);
    expect((await refresh(laptop.refresh)).statusCode).toBe(200);
    expect((await list(laptop.token)).map((s) => s.id)).not.toContain(target.id);
    // Already ended: 404.
    const again = await h.app.inject({
      method: 'DELETE',
      url: `/api/user/sessions/${target.id}`,
      headers: bearer(laptop.token),
    });
    expect(again.statusCode).toBe(404);
  });

  it("cannot end another account's session, nor name one with a bad id", async () => {
    const victim = await register(h.app);
    const attacker = await register(h.app);
    const victimSession = (await list(victim.token))[0]!;
    const response = await h.app.inject({
      method: 'DELETE',
      url: `/api/user/sessions/${victimSession.id}`,
      headers: bearer(attacker.token),
    });
    expect(response.statusCode).toBe(404);
    ErrorBody.parse(response.json());
    expect((await refresh(victim.refresh)).statusCode).toBe(200);
    const bad = await h.app.inject({
      method: 'DELETE',
      url: '/api/user/sessions/not-an-id',
      headers: bearer(attacker.token),
    });
    expect(bad.statusCode).toBe(400);
    expect(ErrorBody.parse(bad.json()).message).toMatch(/session id/);
    const guest = await h.app.inject({ method: 'GET', url: '/api/user/sessions' });
    expect(guest.statusCode).toBe(401);
  });

  it('ends every other session and keeps the current one', async () => {
    const user = await register(h.app);
    const laptop = await signIn(user, FIREFOX);
    const phone = await signIn(user, IPHONE);
    const response = await h.app.inject({
      method: 'DELETE',
      url: '/api/user/sessions',
      headers: { ...bearer(laptop.token), 'content-type': 'application/json' },
      payload: '',
    });
    expect(response.statusCode).toBe(200);
    expect(MessageWithTokenResponse.parse(response.json()).message).toBe('2 other sessions ended');
    expect((await refresh(phone.refresh)).statusCode).toBe(401);
    expect((await refresh(user.refresh)).statusCode).toBe(401);
    expect((await refresh(laptop.refresh)).statusCode).toBe(200);
    // The caller's own earlier token ends too (a copy of it may be the reason); the answer carries its successor.
    expect(
      (await h.app.inject({ method: 'GET', url: '/api/user/sessions', headers: bearer(laptop.token) }))
        .statusCode,
    ).toBe(401);
    const left = await list(MessageWithTokenResponse.parse(response.json()).token);
    expect(left).toHaveLength(1);
    expect(left[0]!.current).toBe(true);
  });

  it('names the session in refreshed access tokens too', async () => {
    const user = await register(h.app);
    const refreshed = await refresh(user.refresh);
    const sessions = await list(refreshed.json().token);
    expect(sessions.filter((s) => s.current)).toHaveLength(1);
  });
});
