// GET /internal/account: what the other services ask on money paths, the account as it is now.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  bearer,
  fromPayments,
  grantRole,
  loginToken,
  register,
  secondAdmin,
  startAuth,
  type AuthHarness,
} from './support.js';

describe('the account for the other services', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth();
  });
  afterAll(async () => h?.close());

  const account = (token: string) => h.app.inject({ url: '/internal/account', headers: fromPayments(token) });

  it('answers the role as it is now, not as the token says', async () => {
    const user = await register(h.app);
    expect((await account(user.token)).json()).toEqual({
      userId: user.id,
      role: 'standard',
      emailVerified: false,
      signedInAt: expect.any(String),
      securityEpoch: 0,
    });
    const admin = await loginToken(h.app, ADMIN.username, ADMIN.password);
    const approver = await secondAdmin(h);
    const promote = await grantRole(h, { requester: admin, approver: approver.token }, user.email, 'admin');
    expect(promote.statusCode).toBe(200);
    // The same old token: the answer is the new role.
    expect((await account(user.token)).json()).toEqual({
      userId: user.id,
      role: 'admin',
      emailVerified: false,
      signedInAt: expect.any(String),
      securityEpoch: 0,
    });
  });

  it('says whether the email is verified, as it is now', async () => {
    const user = await register(h.app);
    expect((await account(user.token)).json().emailVerified).toBe(false);
    const mail = await h.mail.waitFor(user.email, (m) => Boolean(m.link?.includes('/verify-email')));
    const token = new URL(mail.link!).searchParams.get('token')!;
    const verified = await h.app.inject({
      method: 'POST',
      url: '/api/user/verify-email',
      payload: { token },
    });
    expect(verified.statusCode).toBe(200);
    expect((await account(user.token)).json().emailVerified).toBe(true);
  });

  it('is a 401 for an account deleted while its token still lives, and for no token', async () => {
    const user = await register(h.app);
    const deleted = await h.app.inject({
      method: 'DELETE',
      url: '/api/user/delete-account',
      headers: bearer(user.token),
    });
    expect(deleted.statusCode).toBe(200);
    expect((await account(user.token)).statusCode).toBe(401);
    expect((await h.app.inject({ url: '/internal/account', headers: fromPayments() })).statusCode).toBe(401);
  });
});
