// Register, login and the profile routes: each success and each error the server owns (the client contract,
// 7 and 8), every body parsed with the contract.
import {
  ErrorBody,
  LoginResponse,
  MessageResponse,
  PROFILE_PARTS_ACCOUNT,
  PROFILE_PARTS_HEADER,
  ProfileResponse,
  RegisterResponse,
} from '@omc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  bearer,
  freshIp,
  login,
  loginToken,
  newUser,
  refreshCookieOf,
  register,
  startAuth,
  type AuthHarness,
} from './support.js';

describe('accounts', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth();
  });
  afterAll(async () => {
    await h?.close();
  });

  const put = (url: string, token: string, payload: unknown) =>
    h.app.inject({ method: 'PUT', url, payload: payload as object, headers: bearer(token) });
  const profileOf = async (token: string) => {
    const response = await h.app.inject({ url: '/api/user/profile', headers: bearer(token) });
    expect(response.statusCode).toBe(200);
    return ProfileResponse.parse(response.json());
  };
  const expectError = (
    response: { statusCode: number; json(): unknown },
    status: number,
    message: RegExp,
    field?: string,
  ) => {
    expect(response.statusCode).toBe(status);
    const body = ErrorBody.parse(response.json());
    expect(body.message).toMatch(message);
    expect(body.error).toBe(body.message);
    expect(body.requestId).toBeTruthy();
    if (field) expect(body.field).toBe(field);
    return body;
  };

  describe('register', () => {
    it('creates the account, answers a token and sets an httpOnly, SameSite=Strict refresh cookie scoped to the refresh path', async () => {
      const user = newUser();
      const response = await h.app.inject({ method: 'POST', url: '/api/user/register', payload: user });
      expect(response.statusCode).toBe(201);
      const body = RegisterResponse.parse(response.json());
      const claims = h.app.jwt.verify<{
        sub: string;
        username: string;
        role: string;
        exp: number;
        iat: number;
      }>(body.token);
      expect(claims).toMatchObject({ username: user.username, role: 'standard' });
      expect(claims.exp - claims.iat).toBe(15 * 60);
      const cookie = response.cookies.find((c) => c.name === 'omc_refresh')!;
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/user/refresh' });
      expect(cookie.value.length).toBeGreaterThan(30);
      const profile = await profileOf(body.token);
      expect(profile).toMatchObject({
        username: user.username,
        email: user.email,
        role: 'standard',
        preferredLanguage: 'es',
      });
    });

    it('refuses a username or an email that differs from an existing one only in case (409, field named)', async () => {
      const existing = await register(h.app);
      const sameName = await h.app.inject({
        method: 'POST',
        url: '/api/user/register',
        payload: { ...newUser(), username: existing.username.toUpperCase() },
      });
      expectError(sameName, 409, /username is already taken/i, 'username');
      const sameEmail = await h.app.inject({
        method: 'POST',
        url: '/api/user/register',
        payload: { ...newUser(), email: existing.email.toUpperCase() },
      });
      expectError(sameEmail, 409, /email is already registered/i, 'email');
    });

    it.each([
      [{ email: 'a@b.co', password: 'secret1' }, 'username'],
      [{ username: 'ab', email: 'a@b.co', password: 'secret1' }, 'username'],
      [{ username: 'bad name!', email: 'a@b.co', password: 'secret1' }, 'username'],
      [{ username: 'valid_name', email: 'not an email', password: 'secret1' }, 'email'],
      [{ username: 'valid_name', email: 'a@b.co', password: '12345' }, 'password'],
      [{ username: 'valid_name', email: 'a@b.co', password: 'x'.repeat(129) }, 'password'],
    ])('refuses %j with a 400 naming %s', async (payload, field) => {
      const response = await h.app.inject({ method: 'POST', url: '/api/user/register', payload });
      expectError(response, 400, new RegExp(field), field);
    });
  });

  describe('login', () => {
    it('accepts the username or the email, in any case, and answers token, preferredLanguage and message', async () => {
      const user = await register(h.app);
      for (const id of [user.username, user.email, user.email.toUpperCase(), user.username.toUpperCase()]) {
        const response = await login(h.app, id, user.password);
        expect(response.statusCode).toBe(200);
        const body = LoginResponse.parse(response.json());
        expect(body.preferredLanguage).toBe('es');
        expect(h.app.jwt.verify<{ sub: string }>(body.token).sub).toBe(user.id);
        expect(response.cookies.find((c) => c.name === 'omc_refresh')?.value).toBeTruthy();
      }
    });

    it('answers the same 401 message for an unknown user and for a wrong password, and sets no cookie', async () => {
      const user = await register(h.app);
      const wrong = await login(h.app, user.username, 'wrong-password');
      const unknown = await login(h.app, 'nobody_here', 'wrong-password');
      const unknownEmail = await login(h.app, 'nobody@example.com', 'wrong-password');
      for (const response of [wrong, unknown, unknownEmail]) {
        expectError(response, 401, /^Invalid credentials$/);
        expect(response.cookies).toHaveLength(0);
      }
    });

    it('needs both fields (400)', async () => {
      expectError(
        await h.app.inject({ method: 'POST', url: '/api/user/login', payload: { password: 'x' } }),
        400,
        /emailOrUsername/,
        'emailOrUsername',
      );
      expectError(
        await h.app.inject({
          method: 'POST',
          url: '/api/user/login',
          payload: { emailOrUsername: 'someone', password: '' },
        }),
        400,
        /password/,
        'password',
      );
      expectError(
        await h.app.inject({
          method: 'POST',
          url: '/api/user/login',
          payload: { emailOrUsername: '   ', password: 'x' },
        }),
        400,
        /emailOrUsername/,
        'emailOrUsername',
      );
    });

    it('lets the bootstrap admin in with the configured password', async () => {
      const token = await loginToken(h.app, ADMIN.email, ADMIN.password);
      expect(await profileOf(token)).toMatchObject({ username: ADMIN.username, role: 'admin' });
    });
  });

  describe('profile', () => {
    it('composes identity with the game and payments fields, forwarding the caller token and request id', async () => {
      const user = await register(h.app);
      h.game.bodies.set(user.id, { freeClicks: 110, purchasedClicks: 40, hasInfiniteClicks: false });
      h.payments.bodies.set(user.id, { potEarned: 12.5, paypalEmail: 'pay@example.com', adminBalance: null });
      const response = await h.app.inject({
        url: '/api/user/profile',
        headers: { ...bearer(user.token), 'x-request-id': 'profile-req-1' },
      });
      expect(ProfileResponse.parse(response.json())).toEqual({
        username: user.username,
        email: user.email,
        role: 'standard',
        preferredLanguage: 'es',
        freeClicks: 110,
        purchasedClicks: 40,
        hasInfiniteClicks: false,
        potEarned: 12.5,
        paypalEmail: 'pay@example.com',
        adminBalance: null,
        emailVerified: false,
        pendingEmail: null,
      });
      for (const upstream of [h.game, h.payments]) {
        expect(upstream.seen).toContainEqual({
          authorization: `Bearer ${user.token}`,
          requestId: 'profile-req-1',
        });
      }
    });

    it('answers the account alone, asking nobody, when the gateway gathers the balances itself', async () => {
      const user = await register(h.app);
      const seenBefore = h.game.seen.length + h.payments.seen.length;
      const response = await h.app.inject({
        url: '/api/user/profile',
        headers: { ...bearer(user.token), [PROFILE_PARTS_HEADER]: PROFILE_PARTS_ACCOUNT },
      });
      expect(response.statusCode).toBe(200);
      expect(ProfileResponse.parse(response.json())).toMatchObject({
        username: user.username,
        email: user.email,
        role: 'standard',
        freeClicks: null,
        potEarned: null,
        emailVerified: false,
        pendingEmail: null,
      });
      expect(h.game.seen.length + h.payments.seen.length).toBe(seenBefore);
    });

    it.each(['error', 'hang', 'garbage'] as const)(
      'still answers, with nulls for the part that is %s',
      async (mode) => {
        const user = await register(h.app);
        for (const [down, up] of [
          [h.game, h.payments],
          [h.payments, h.game],
        ] as const) {
          down.mode = mode;
          up.mode = 'ok';
          try {
            const profile = await profileOf(user.token);
            expect(profile.username).toBe(user.username);
            if (down === h.game) {
              expect(profile).toMatchObject({
                freeClicks: null,
                hasInfiniteClicks: null,
                potEarned: 0,
                paypalEmail: null,
              });
            } else {
              expect(profile).toMatchObject({
                freeClicks: 10,
                hasInfiniteClicks: false,
                potEarned: null,
                adminBalance: null,
              });
            }
          } finally {
            down.mode = 'ok';
          }
        }
      },
    );

    it('answers with identity alone when both are down', async () => {
      const user = await register(h.app);
      h.game.mode = 'hang';
      h.payments.mode = 'error';
      try {
        expect(await profileOf(user.token)).toMatchObject({
          username: user.username,
          freeClicks: null,
          potEarned: null,
        });
      } finally {
        h.game.mode = 'ok';
        h.payments.mode = 'ok';
      }
    });
  });

  describe('changes', () => {
    it('change-language stores the language, and login answers it', async () => {
      const user = await register(h.app);
      const response = await put('/api/user/change-language', user.token, { language: 'fr' });
      expect(response.statusCode).toBe(200);
      MessageResponse.parse(response.json());
      expect((await profileOf(user.token)).preferredLanguage).toBe('fr');
      expect(
        LoginResponse.parse((await login(h.app, user.username, user.password)).json()).preferredLanguage,
      ).toBe('fr');
      expectError(
        await put('/api/user/change-language', user.token, { language: 'xx' }),
        400,
        /language/,
        'language',
      );
    });

    it('change-email waits for the new address to confirm; a taken one (any case) is 409, a bad one 400', async () => {
      const user = await register(h.app);
      const other = await register(h.app);
      const response = await put('/api/user/change-email', user.token, { email: `new_${user.email}` });
      expect(response.statusCode).toBe(200);
      MessageResponse.parse(response.json());
      // The confirmation from the new inbox is in email-change.test.ts.
      expect(await profileOf(user.token)).toMatchObject({
        email: user.email,
        pendingEmail: `new_${user.email}`,
      });
      expectError(
        await put('/api/user/change-email', user.token, { email: other.email.toUpperCase() }),
        409,
        /already registered/,
        'email',
      );
      expectError(
        await put('/api/user/change-email', user.token, { email: 'with space@example.com' }),
        400,
        /email/,
        'email',
      );
    });

    it("change-username renames; a taken one is 409, a bad one 400, a change of case of one's own name is fine", async () => {
      const user = await register(h.app);
      const other = await register(h.app);
      const renamed = `${user.username}_x`;
      expect((await put('/api/user/change-username', user.token, { username: renamed })).statusCode).toBe(
        200,
      );
      expect((await profileOf(user.token)).username).toBe(renamed);
      expectError(
        await put('/api/user/change-username', user.token, { username: other.username.toUpperCase() }),
        409,
        /already taken/,
        'username',
      );
      expectError(
        await put('/api/user/change-username', user.token, { username: 'no spaces' }),
        400,
        /letters, digits and underscore/,
        'username',
      );
      expectError(
        await put('/api/user/change-username', user.token, { username: 'ab' }),
        400,
        /at least 3/,
        'username',
      );
      expect(
        (await put('/api/user/change-username', user.token, { username: renamed.toUpperCase() })).statusCode,
      ).toBe(200);
      expect((await login(h.app, renamed, user.password)).statusCode).toBe(200);
    });

    it('change-password needs the current password; afterwards only the new one works', async () => {
      const user = await register(h.app);
      expectError(
        await put('/api/user/change-password', user.token, {
          currentPassword: 'not-it',
          newPassword: 'brand-new-pass',
        }),
        400,
        /Current password is incorrect/,
        'currentPassword',
      );
      expectError(
        await put('/api/user/change-password', user.token, {
          currentPassword: user.password,
          newPassword: '123',
        }),
        400,
        /at least 6/,
        'newPassword',
      );
      const response = await put('/api/user/change-password', user.token, {
        currentPassword: user.password,
        newPassword: 'brand-new-pass',
      });
      expect(response.statusCode).toBe(200);
      MessageResponse.parse(response.json());
      expect((await login(h.app, user.username, user.password)).statusCode).toBe(401);
      expect((await login(h.app, user.username, 'brand-new-pass')).statusCode).toBe(200);
    });

    it('change-password ends the other sessions but keeps this browser signed in', async () => {
      const user = await register(h.app);
      const other = await login(h.app, user.username, user.password);
      const response = await put('/api/user/change-password', user.token, {
        currentPassword: user.password,
        newPassword: 'another-pass-1',
      });
      expect(response.statusCode).toBe(200);
      const ended = await h.app.inject({
        method: 'POST',
        url: '/api/user/refresh',
        cookies: { omc_refresh: refreshCookieOf(other)! },
      });
      expect(ended.statusCode).toBe(401);
      const kept = await h.app.inject({
        method: 'POST',
        url: '/api/user/refresh',
        cookies: { omc_refresh: user.refresh },
      });
      expect(kept.statusCode).toBe(200);
      // The original client keeps using the token it holds.
      expect((await h.app.inject({ url: '/api/user/profile', headers: bearer(user.token) })).statusCode).toBe(
        200,
      );
    });
  });

  describe('delete-account', () => {
    const remove = (token: string) =>
      h.app.inject({ method: 'DELETE', url: '/api/user/delete-account', headers: bearer(token) });

    it('deletes the account: its token, refresh cookie, username and email stop working and become free again', async () => {
      const user = await register(h.app);
      const response = await remove(user.token);
      expect(response.statusCode).toBe(200);
      MessageResponse.parse(response.json());
      expectError(
        await h.app.inject({ url: '/api/user/profile', headers: bearer(user.token) }),
        401,
        /no longer exists/,
      );
      expect(
        (
          await h.app.inject({
            method: 'POST',
            url: '/api/user/refresh',
            cookies: { omc_refresh: user.refresh },
          })
        ).statusCode,
      ).toBe(401);
      expectError(await login(h.app, user.username, user.password), 401, /Invalid credentials/);
      const rows = await h.deps.db.selectFrom('users').select('id').where('id', '=', user.id).execute();
      expect(rows).toHaveLength(0);
      await register(h.app, { username: user.username, email: user.email, password: 'reused-secret' });
    });

    it('does not mind Content-Type: application/json with an empty body', async () => {
      const user = await register(h.app);
      const response = await h.app.inject({
        method: 'DELETE',
        url: '/api/user/delete-account',
        headers: { ...bearer(user.token), 'content-type': 'application/json' },
        payload: '',
      });
      expect(response.statusCode).toBe(200);
    });

    it('is refused with 409 while winnings are uncollected, saying to collect them first', async () => {
      const user = await register(h.app);
      h.payments.bodies.set(user.id, { potEarned: 3.5, paypalEmail: null, adminBalance: null });
      const body = expectError(await remove(user.token), 409, /uncollected winnings/i);
      expect(body.message).toMatch(/collect/i);
      expect((await profileOf(user.token)).username).toBe(user.username);
    });

    it.each(['error', 'hang'] as const)(
      'is refused with 503 when payments is %s (never deletes blind)',
      async (mode) => {
        const user = await register(h.app);
        h.payments.mode = mode;
        try {
          expectError(await remove(user.token), 503, /try again later/i);
        } finally {
          h.payments.mode = 'ok';
        }
        expect((await profileOf(user.token)).username).toBe(user.username);
      },
    );

    it('refuses to delete the last admin', async () => {
      const token = await loginToken(h.app, ADMIN.username, ADMIN.password);
      expectError(await remove(token), 409, /last admin/i);
    });
  });

  it('answers a JSON 404 for an unknown /api/user route', async () => {
    const response = await h.app.inject({
      url: '/api/user/nothing-here',
      headers: { 'x-forwarded-for': freshIp() },
    });
    expect(response.statusCode).toBe(404);
    ErrorBody.parse(response.json());
  });
});
