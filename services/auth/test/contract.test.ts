// The route catalogue of packages/contracts, walked: every auth route answers its success with a body
// that parses with the catalogue's response schema, and its errors with the error envelope.
import { ErrorBody, ROUTES } from '@omc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  bearer,
  freshIp,
  loginToken,
  newUser,
  register,
  secondAdmin,
  startAuth,
  type AuthHarness,
} from './support.js';
import { createResetRequest, mintResetToken } from '../src/password-reset/reset-tokens.repo.js';

const authRoutes = ROUTES.filter((r) => r.service === 'auth');

describe('contract: the auth routes of the catalogue', () => {
  let h: AuthHarness;
  let adminToken: string;
  beforeAll(async () => {
    h = await startAuth();
    adminToken = await loginToken(h.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => {
    await h?.close();
  });

  /** A valid call of each route, made by a fresh user (or the admin for admin routes). */
  async function validCall(path: string) {
    const user = await register(h.app);
    const headers = { ...bearer(user.token), 'x-forwarded-for': freshIp() };
    const cookies = { omc_refresh: user.refresh };
    const fresh = newUser();
    // A link from the mails of an email change, asked for only by the two routes that take one.
    const changeLink = async (kind: 'confirm-email' | 'undo-email-change') => {
      if (path !== `/api/user/${kind}`) return 'unused';
      const wanted = `m_${user.email}`;
      await h.app.inject({
        method: 'PUT',
        url: '/api/user/change-email',
        headers,
        payload: { email: wanted },
      });
      const to = kind === 'confirm-email' ? wanted : user.email;
      const mail = await h.mail.waitFor(to, (m) => Boolean(m.link?.includes(`/${kind}?`)));
      return new URL(mail.link!).searchParams.get('token')!;
    };
    /**
     * A pending grant for the user, opened by the bootstrap admin and decided by a second admin (made
     * first: with one admin a grant is made at once).
     */
    const decideCall = async (action: 'approve' | 'refuse') => {
      if (path !== `/api/admin/approvals/:id/${action}`) return {};
      const approver = await secondAdmin(h, 'contract_approver');
      const asked = await h.app.inject({
        method: 'POST',
        url: '/api/admin/updateRole',
        headers: bearer(adminToken),
        payload: { email: user.email, role: 'superuser' },
      });
      return {
        headers: bearer(approver.token),
        url: `/api/admin/approvals/${asked.json().approval.id}/${action}`,
        payload: {},
      };
    };
    const calls: Record<
      string,
      { url?: string; payload?: object; headers?: Record<string, string>; cookies?: Record<string, string> }
    > = {
      '/api/user/login': { payload: { emailOrUsername: user.username, password: user.password } },
      '/api/user/register': { payload: fresh },
      '/api/user/refresh': { cookies },
      '/api/user/refresh/logout': { cookies },
      '/api/user/profile': { headers },
      '/api/user/change-language': { headers, payload: { language: 'de' } },
      '/api/user/change-email': { headers, payload: { email: `c_${user.email}` } },
      '/api/user/change-password': {
        headers,
        payload: { currentPassword: user.password, newPassword: 'changed-pass' },
      },
      '/api/user/change-username': { headers, payload: { username: `${user.username}_c` } },
      '/api/user/delete-account': { headers },
      '/api/user/forgot-password': { headers, payload: { email: user.email } },
      '/api/user/reset-password': {
        payload: {
          token: (await mintResetToken(
            h.deps.db,
            await createResetRequest(h.deps.db, user.id, Date.now() + 60_000),
            Date.now(),
          ))!,
          newPassword: 'reset-pass-1',
        },
      },
      '/api/user/sessions': { headers },
      '/api/user/resend-verification': { headers },
      '/api/user/verify-email': {
        payload: {
          token:
            path === '/api/user/verify-email'
              ? new URL(
                  (await h.mail.waitFor(user.email, (m) => Boolean(m.link?.includes('/verify-email')))).link!,
                ).searchParams.get('token')!
              : 'unused',
        },
      },
      '/api/user/confirm-email': { payload: { token: await changeLink('confirm-email') } },
      '/api/user/undo-email-change': { payload: { token: await changeLink('undo-email-change') } },
      '/api/user/sessions/:id': {
        headers,
        url: `/api/user/sessions/${(await h.deps.db.selectFrom('sessions').select('family_id').where('user_id', '=', user.id).executeTakeFirstOrThrow()).family_id}`,
      },
      '/api/admin/users': { headers: bearer(adminToken) },
      '/api/admin/users/:id/suspend': {
        headers: bearer(adminToken),
        url: `/api/admin/users/${user.id}/suspend`,
        payload: { reason: 'contract check' },
      },
      '/api/admin/users/:id/restore': {
        headers: bearer(adminToken),
        url: `/api/admin/users/${user.id}/restore`,
        payload: { reason: 'contract check' },
      },
      '/api/admin/audit': { headers: bearer(adminToken) },
      '/api/admin/updateRole': {
        headers: bearer(adminToken),
        payload: { email: user.email, role: 'superuser' },
      },
      '/api/admin/collect': { headers: bearer(adminToken) },
      '/api/admin/approvals': { headers: bearer(adminToken) },
      '/api/admin/approvals/:id/approve': await decideCall('approve'),
      '/api/admin/approvals/:id/refuse': await decideCall('refuse'),
    };
    const call = calls[path];
    if (!call) throw new Error(`no valid call written for ${path}: add one`);
    return call;
  }

  it.each(authRoutes.map((r) => [r.method, r.path, r] as const))(
    '%s %s answers a body that parses with its response schema',
    async (method, path, route) => {
      const call = await validCall(path);
      const response = await h.app.inject({ method, url: path, ...call });
      if (path === '/api/user/forgot-password') expect(response.statusCode).toBe(202);
      expect(response.statusCode, response.body).toBeLessThan(300);
      expect(() => route.response.parse(response.json())).not.toThrow();
    },
  );

  it.each(
    authRoutes.filter((r) => r.auth === 'user' || r.auth === 'admin').map((r) => [r.method, r.path] as const),
  )('%s %s answers 401 with the error envelope to a guest', async (method, path) => {
    const response = await h.app.inject({ method, url: path });
    expect(response.statusCode).toBe(401);
    expect(ErrorBody.parse(response.json()).requestId).toBeTruthy();
  });

  // A body that may be empty (the house collect's optional password) has nothing to name.
  it.each(
    authRoutes.filter((r) => r.body && !r.body.safeParse({}).success).map((r) => [r.method, r.path] as const),
  )('%s %s answers 400 with the error envelope to an empty object', async (method, path) => {
    const response = await h.app.inject({
      method,
      url: path,
      payload: {},
      headers: { ...bearer(adminToken), 'x-forwarded-for': freshIp() },
    });
    expect(response.statusCode).toBe(400);
    const body = ErrorBody.parse(response.json());
    expect(body.field).toBeTruthy();
    expect(body.message).toContain(body.field!);
  });
});
