// Refresh rotation, reuse detection, logout, and the tokens every route refuses.
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { ErrorBody, MessageResponse, RefreshResponse, SUBJECTS } from '@omc/contracts';
import { eventually, generateTokenKeys, signAccessToken } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_ENDED } from '../src/users/current-user.js';
import { bearer, refreshCookieOf, register, startAuth, type AuthHarness } from './support.js';

describe('sessions', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth({ REFRESH_REUSE_GRACE_MS: '0' });
  });
  afterAll(async () => {
    await h?.close();
  });

  const refresh = (cookie?: string) =>
    h.app.inject({
      method: 'POST',
      url: '/api/user/refresh',
      ...(cookie ? { cookies: { omc_refresh: cookie } } : {}),
    });

  describe('refresh', () => {
    it('answers a new access token from the cookie alone and rotates the cookie on every use', async () => {
      const user = await register(h.app);
      const first = await refresh(user.refresh);
      expect(first.statusCode).toBe(200);
      const { token } = RefreshResponse.parse(first.json());
      expect(h.app.jwt.verify<{ sub: string }>(token).sub).toBe(user.id);
      const rotated = refreshCookieOf(first)!;
      expect(rotated).toBeTruthy();
      expect(rotated).not.toBe(user.refresh);
      const second = await refresh(rotated);
      expect(second.statusCode).toBe(200);
      expect(refreshCookieOf(second)).not.toBe(rotated);
    });

    it('does not mind a client that sends Content-Type: application/json with an empty body', async () => {
      const user = await register(h.app);
      const response = await h.app.inject({
        method: 'POST',
        url: '/api/user/refresh',
        headers: { 'content-type': 'application/json' },
        payload: '',
        cookies: { omc_refresh: user.refresh },
      });
      expect(response.statusCode).toBe(200);
      RefreshResponse.parse(response.json());
    });

    it('stores only a hash of the refresh token', async () => {
      const user = await register(h.app);
      const rows = await h.deps.db
        .selectFrom('refresh_tokens')
        .select('token_hash')
        .where('user_id', '=', user.id)
        .execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]!.token_hash).not.toContain(user.refresh);
      expect(rows[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    });

    it('treats a rotated token used again as theft: 401 and the whole family is revoked', async () => {
      const user = await register(h.app);
      const next = refreshCookieOf(await refresh(user.refresh))!;
      const replay = await refresh(user.refresh);
      expect(replay.statusCode).toBe(401);
      expect(ErrorBody.parse(replay.json()).message).toMatch(/log in again/);
      // The legitimate holder's newer token is dead too.
      expect((await refresh(next)).statusCode).toBe(401);
    });

    it('reuse revokes only that family: another login of the same user keeps working', async () => {
      const user = await register(h.app);
      const other = await h.app.inject({
        method: 'POST',
        url: '/api/user/login',
        payload: { emailOrUsername: user.username, password: user.password },
      });
      await refresh(user.refresh);
      await refresh(user.refresh);
      expect((await refresh(refreshCookieOf(other)!)).statusCode).toBe(200);
    });

    it('answers 401 for no cookie, an unknown token and an expired one, and clears the cookie', async () => {
      expect((await refresh()).statusCode).toBe(401);
      const unknown = await refresh('not-a-token-we-issued');
      expect(unknown.statusCode).toBe(401);
      expect(unknown.cookies.find((c) => c.name === 'omc_refresh')?.value).toBe('');
      const user = await register(h.app);
      await h.deps.db
        .updateTable('refresh_tokens')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('user_id', '=', user.id)
        .execute();
      expect((await refresh(user.refresh)).statusCode).toBe(401);
    });

    it('picks up a role change made since the last token', async () => {
      const user = await register(h.app);
      await h.deps.db.updateTable('users').set({ role: 'superuser' }).where('id', '=', user.id).execute();
      const { token } = RefreshResponse.parse((await refresh(user.refresh)).json());
      expect(h.app.jwt.verify<{ role: string }>(token).role).toBe('superuser');
    });
  });

  describe('refresh within the grace of a racing tab', () => {
    let g: AuthHarness;
    beforeAll(async () => {
      g = await startAuth({ REFRESH_REUSE_GRACE_MS: '60000' });
    });
    afterAll(async () => {
      await g?.close();
    });

    it('a second refresh with the just-rotated token gets an access token, no new cookie, and revokes nothing', async () => {
      const user = await register(g.app);
      const first = await g.app.inject({
        method: 'POST',
        url: '/api/user/refresh',
        cookies: { omc_refresh: user.refresh },
      });
      const second = await g.app.inject({
        method: 'POST',
        url: '/api/user/refresh',
        cookies: { omc_refresh: user.refresh },
      });
      expect(second.statusCode).toBe(200);
      RefreshResponse.parse(second.json());
      expect(refreshCookieOf(second)).toBeUndefined();
      const third = await g.app.inject({
        method: 'POST',
        url: '/api/user/refresh',
        cookies: { omc_refresh: refreshCookieOf(first)! },
      });
      expect(third.statusCode).toBe(200);
    });
  });

  describe('logout', () => {
    it('revokes the session of the cookie and clears it; logging out twice is harmless', async () => {
      const user = await register(h.app);
      const response = await h.app.inject({
        method: 'POST',
        url: '/api/user/refresh/logout',
        cookies: { omc_refresh: user.refresh },
      });
      expect(response.statusCode).toBe(200);
      MessageResponse.parse(response.json());
      const cleared = response.cookies.find((c) => c.name === 'omc_refresh')!;
      expect(cleared).toMatchObject({ value: '', path: '/api/user/refresh' });
      expect((await refresh(user.refresh)).statusCode).toBe(401);
      expect((await h.app.inject({ method: 'POST', url: '/api/user/refresh/logout' })).statusCode).toBe(200);
    });
  });

  // A harness of its own: the nested harness above resets NATS, and these tests read the events.
  describe('logout with the access token', () => {
    let l: AuthHarness;
    beforeAll(async () => {
      l = await startAuth();
    });
    afterAll(async () => {
      await l?.close();
    });
    const refreshIn = (cookie: string) =>
      l.app.inject({ method: 'POST', url: '/api/user/refresh', cookies: { omc_refresh: cookie } });
    const logout = (headers: Record<string, string>, cookie?: string) =>
      l.app.inject({
        method: 'POST',
        url: '/api/user/refresh/logout',
        headers,
        ...(cookie ? { cookies: { omc_refresh: cookie } } : {}),
      });
    const sidOf = (token: string): string =>
      JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid;

    it('with the access token alone (no cookie) ends the session it names, and announces it', async () => {
      const user = await register(l.app);
      const other = RefreshResponse.parse((await refreshIn(user.refresh)).json()).token;
      const second = await register(l.app);
      const response = await logout(bearer(user.token));
      expect(response.statusCode).toBe(200);
      expect(response.cookies.find((c) => c.name === 'omc_refresh')).toMatchObject({ value: '' });
      const profile = (token: string) => l.app.inject({ url: '/api/user/profile', headers: bearer(token) });
      const refused = await profile(user.token);
      expect(refused.statusCode).toBe(401);
      expect(ErrorBody.parse(refused.json()).message).toBe(SESSION_ENDED);
      // Every token of the session, not only the one presented; another account's session goes on.
      expect((await profile(other)).statusCode).toBe(401);
      expect((await profile(second.token)).statusCode).toBe(200);
      await eventually(
        () =>
          l.events
            .of(SUBJECTS.sessionEnded)
            .some((e) => e.data.sessionId === sidOf(user.token) && e.data.userId === user.id),
        'the session ended event',
      );
    });

    it("still answers 200 and clears the cookie with a bad or expired access token, and ends the cookie's session", async () => {
      const user = await register(l.app);
      const expired = await signAccessToken(l.keys.privateKey, {
        sub: user.id,
        username: user.username,
        role: 'standard',
        sid: sidOf(user.token),
        sv: 0,
        exp: Math.floor(Date.now() / 1000) - 30,
      });
      for (const authorization of [`Bearer ${expired}`, 'Bearer not.a.jwt', 'Basic abc']) {
        const response = await logout({ authorization });
        expect(response.statusCode, authorization).toBe(200);
        expect(response.cookies.find((c) => c.name === 'omc_refresh')).toMatchObject({ value: '' });
      }
      // None of them ended the session; the cookie, presented with a bad token, does.
      expect((await l.app.inject({ url: '/api/user/profile', headers: bearer(user.token) })).statusCode).toBe(
        200,
      );
      expect((await logout({ authorization: 'Bearer not.a.jwt' }, user.refresh)).statusCode).toBe(200);
      expect((await refreshIn(user.refresh)).statusCode).toBe(401);
      expect((await l.app.inject({ url: '/api/user/profile', headers: bearer(user.token) })).statusCode).toBe(
        401,
      );
    });
  });

  describe('access tokens refused', () => {
    let user: Awaited<ReturnType<typeof register>>;
    beforeAll(async () => {
      user = await register(h.app);
    });
    const profile = (authorization: string) =>
      h.app.inject({ url: '/api/user/profile', headers: { authorization } });
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const claims = () => ({
      sub: user.id,
      username: user.username,
      role: 'admin',
      exp: Math.floor(Date.now() / 1000) + 600,
    });

    it('accepts the genuine token (control)', async () => {
      expect((await profile(`Bearer ${user.token}`)).statusCode).toBe(200);
    });

    it.each([
      ['alg none', () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`],
      [
        'HS256 signed with the public key as secret',
        () => {
          const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims())}`;
          return `${head}.${createHmac('sha256', h.keys.publicKey).update(head).digest('base64url')}`;
        },
      ],
      [
        'a tampered payload',
        () => {
          const [head, , signature] = user.token.split('.');
          return `${head}.${b64(claims())}.${signature}`;
        },
      ],
      ['garbage', () => 'not.a.jwt'],
    ])('refuses %s with 401', async (_name, make) => {
      const response = await profile(`Bearer ${make()}`);
      expect(response.statusCode).toBe(401);
      expect(ErrorBody.parse(response.json()).message).toMatch(/Invalid token|Authorization header/);
    });

    it('refuses a token signed with another key', async () => {
      const other = generateTokenKeys();
      const token = await signAccessToken(other.privateKey, {
        sub: user.id,
        username: user.username,
        role: 'standard',
      });
      expect((await profile(`Bearer ${token}`)).statusCode).toBe(401);
      const another = generateKeyPairSync('ed25519')
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString();
      expect(
        (
          await profile(
            `Bearer ${await signAccessToken(another, { sub: user.id, username: user.username, role: 'standard' })}`,
          )
        ).statusCode,
      ).toBe(401);
    });

    it('refuses an expired token with "Token expired"', async () => {
      const token = await signAccessToken(h.keys.privateKey, {
        sub: user.id,
        username: user.username,
        role: 'standard',
        exp: Math.floor(Date.now() / 1000) - 30,
      });
      const response = await profile(`Bearer ${token}`);
      expect(response.statusCode).toBe(401);
      expect(ErrorBody.parse(response.json()).message).toBe('Token expired');
    });

    it('refuses a missing or malformed Authorization header', async () => {
      expect((await h.app.inject({ url: '/api/user/profile' })).statusCode).toBe(401);
      expect((await profile(user.token)).statusCode).toBe(401);
      expect((await profile('Basic abc')).statusCode).toBe(401);
    });

    it('refuses a genuinely signed token that names no session or security version (401)', async () => {
      const bare = await signAccessToken(h.keys.privateKey, {
        sub: user.id,
        username: user.username,
        role: 'standard',
      });
      const response = await profile(`Bearer ${bare}`);
      expect(response.statusCode).toBe(401);
      expect(ErrorBody.parse(response.json()).message).toMatch(/session has ended/);
    });

    it('does not trust the role claim: a standard user with a token claiming admin is still refused admin routes', async () => {
      const { sid, sv } = JSON.parse(Buffer.from(user.token.split('.')[1]!, 'base64url').toString());
      const forged = await signAccessToken(h.keys.privateKey, {
        sub: user.id,
        username: user.username,
        role: 'admin',
        sid,
        sv,
      });
      expect((await h.app.inject({ url: '/api/admin/users', headers: bearer(forged) })).statusCode).toBe(403);
    });
  });
});
