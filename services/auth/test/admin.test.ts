// Roles: the authorization matrix of the client contract as auth enforces it, the admin routes, and the rule
// that the last admin stays.
import { AdminUsersResponse, ErrorBody, MessageResponse, SUBJECTS, type Role } from '@omc/contracts';
import { eventually } from '@omc/testkit';
import { createMetrics } from '@omc/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, start } from '../src/app.js';
import { authCounters } from '../src/deps.js';
import {
  ADMIN,
  bearer,
  loginToken,
  newUser,
  register,
  secondAdmin,
  startAuth,
  type AuthHarness,
} from './support.js';

describe('roles and admin routes', () => {
  let h: AuthHarness;
  let adminToken: string;
  beforeAll(async () => {
    h = await startAuth();
    adminToken = await loginToken(h.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => {
    await h?.close();
  });

  const updateRole = (token: string, email: string, role: Role | string) =>
    h.app.inject({
      method: 'POST',
      url: '/api/admin/updateRole',
      headers: bearer(token),
      payload: { email, role },
    });
  /**
   * A role change as the routes allow it: a grant of superuser or admin asked by `token`'s admin and
   * approved by another admin made for it (and demoted again after, so the admin count stays).
   */
  async function grant(token: string, email: string, role: Role) {
    const asked = await updateRole(token, email, role);
    if (asked.statusCode !== 202 || !asked.json().approval) return asked;
    const approver = await secondAdmin(h, 'approver');
    try {
      return await h.app.inject({
        method: 'POST',
        url: `/api/admin/approvals/${asked.json().approval.id}/approve`,
        headers: bearer(approver.token),
        payload: {},
      });
    } finally {
      await h.deps.db.updateTable('users').set({ role: 'standard' }).where('id', '=', approver.id).execute();
    }
  }
  const listUsers = (token?: string) =>
    h.app.inject({ url: '/api/admin/users', headers: token ? bearer(token) : {} });

  /** Other tests make admins; the last-admin tests start from the bootstrap admin alone. */
  async function onlyBootstrapAdmin() {
    await h.deps.db
      .updateTable('users')
      .set({ role: 'standard' })
      .where('role', '=', 'admin')
      .where('email', '!=', ADMIN.email)
      .execute();
  }

  async function userWithRole(role: Role) {
    const user = await register(h.app, newUser(role));
    if (role !== 'standard') expect((await grant(adminToken, user.email, role)).statusCode).toBe(200);
    return user;
  }

  describe('authorization matrix', () => {
    const userRoutes = [
      { method: 'GET', url: '/api/user/profile' },
      { method: 'PUT', url: '/api/user/change-language', payload: { language: 'en' } },
    ] as const;

    it('a guest gets 401 on every signed-in and admin route', async () => {
      for (const route of [
        ...userRoutes,
        { method: 'GET', url: '/api/admin/users' },
        { method: 'POST', url: '/api/admin/updateRole', payload: { email: 'x@y.z', role: 'admin' } },
        { method: 'PUT', url: '/api/user/change-email', payload: {} },
        { method: 'DELETE', url: '/api/user/delete-account' },
      ] as const) {
        const response = await h.app.inject({
          method: route.method,
          url: route.url,
          ...('payload' in route ? { payload: route.payload } : {}),
        });
        expect(response.statusCode, `${route.method} ${route.url}`).toBe(401);
        expect(ErrorBody.parse(response.json()).message).toBe('Authentication required');
      }
    });

    it.each(['standard', 'superuser', 'admin'] as const)('a %s reaches the profile routes', async (role) => {
      const user = await userWithRole(role);
      for (const route of userRoutes) {
        const response = await h.app.inject({
          method: route.method,
          url: route.url,
          headers: bearer(user.token),
          ...('payload' in route ? { payload: route.payload } : {}),
        });
        expect(response.statusCode, `${route.method} ${route.url}`).toBe(200);
      }
    });

    it.each(['standard', 'superuser'] as const)('a %s gets 403 on the admin routes', async (role) => {
      const { token, email } = await userWithRole(role);
      const list = await listUsers(token);
      expect(list.statusCode).toBe(403);
      expect(ErrorBody.parse(list.json()).message).toBe('Admin only');
      expect((await updateRole(token, email, 'admin')).statusCode).toBe(403);
    });

    it('an admin lists users', async () => {
      const { token } = await userWithRole('admin');
      const response = await listUsers(token);
      expect(response.statusCode).toBe(200);
      const { users } = AdminUsersResponse.parse(response.json());
      expect(users).toContainEqual({ username: ADMIN.username, email: ADMIN.email, role: 'admin' });
    });
  });

  describe('updateRole', () => {
    it('changes the role, finds the user by email in any case, and says so', async () => {
      const user = await register(h.app);
      const response = await grant(adminToken, user.email.toUpperCase(), 'superuser');
      expect(response.statusCode).toBe(200);
      expect(MessageResponse.parse(response.json()).message).toBe('Approved: role updated');
      const { users } = AdminUsersResponse.parse((await listUsers(adminToken)).json());
      expect(users).toContainEqual({ username: user.username, email: user.email, role: 'superuser' });
      expect(
        MessageResponse.parse((await updateRole(adminToken, user.email, 'superuser')).json()).message,
      ).toBe('Role unchanged');
    });

    it('takes effect on the very next request, with the old token still in hand', async () => {
      const user = await register(h.app);
      expect((await listUsers(user.token)).statusCode).toBe(403);
      await grant(adminToken, user.email, 'admin');
      expect((await listUsers(user.token)).statusCode).toBe(200);
      await updateRole(adminToken, user.email, 'standard');
      expect((await listUsers(user.token)).statusCode).toBe(403);
    });

    it("tells the game before answering, with auth's own sequence as the change's version, and no clock", async () => {
      const user = await register(h.app);
      const before = h.game.roleCalls.length;
      const response = await grant(adminToken, user.email, 'superuser');
      expect(response.statusCode).toBe(200);
      // The approving admin's token: the admin who carried the change out.
      expect(h.game.roleCalls.slice(before)).toEqual([
        {
          userId: user.id,
          body: { role: 'superuser', roleVersion: expect.any(Number) },
          authorization: expect.stringMatching(/^Bearer /),
        },
      ]);
      const { roleVersion } = h.game.roleCalls.at(-1)!.body;
      await eventually(() =>
        h.events
          .of(SUBJECTS.userRoleChanged)
          .some(
            (e) =>
              e.data.userId === user.id && e.data.roleVersion === roleVersion && e.data.role === 'superuser',
          ),
      );
      // The next change, to anyone, has a higher version.
      await updateRole(adminToken, user.email, 'standard');
      expect(h.game.roleCalls.at(-1)!.body.roleVersion).toBeGreaterThan(roleVersion);
      // Nothing changed, nothing told.
      await updateRole(adminToken, user.email, 'standard');
      expect(h.game.roleCalls.length).toBe(before + 2);
    });

    it('answers 202 when the game does not confirm in time: the role is changed and its event still goes out', async () => {
      for (const mode of ['error', 'hang', 'garbage'] as const) {
        const user = await register(h.app);
        h.game.mode = mode;
        try {
          const response = await grant(adminToken, user.email, 'superuser');
          expect(response.statusCode, mode).toBe(202);
          expect(MessageResponse.parse(response.json()).message, mode).toMatch(
            /^Role updated\. The game did not confirm/,
          );
        } finally {
          h.game.mode = 'ok';
        }
        const { users } = AdminUsersResponse.parse((await listUsers(adminToken)).json());
        expect(users, mode).toContainEqual({ username: user.username, email: user.email, role: 'superuser' });
        await eventually(() =>
          h.events
            .of(SUBJECTS.userRoleChanged)
            .some((e) => e.data.userId === user.id && e.data.role === 'superuser'),
        );
      }
    });

    it('answers 404 for an unknown email and 400 for a bad role or email', async () => {
      expect(
        ErrorBody.parse((await updateRole(adminToken, 'nobody@example.com', 'admin')).json()),
      ).toMatchObject({ message: 'No user has this email' });
      expect((await updateRole(adminToken, 'nobody@example.com', 'admin')).statusCode).toBe(404);
      const badRole = await updateRole(adminToken, ADMIN.email, 'emperor');
      expect(badRole.statusCode).toBe(400);
      expect(ErrorBody.parse(badRole.json()).field).toBe('role');
      const badEmail = await updateRole(adminToken, 'not-an-email', 'admin');
      expect(badEmail.statusCode).toBe(400);
      expect(ErrorBody.parse(badEmail.json()).field).toBe('email');
    });

    it('refuses to demote the last admin, also when the admin demotes themself', async () => {
      await onlyBootstrapAdmin();
      const response = await updateRole(adminToken, ADMIN.email, 'standard');
      expect(response.statusCode).toBe(409);
      expect(ErrorBody.parse(response.json()).message).toMatch(/last admin/);
    });

    it('two admins demoting each other at once leave exactly one admin', async () => {
      await onlyBootstrapAdmin();
      const second = await register(h.app);
      await grant(adminToken, second.email, 'admin');
      const secondToken = await loginToken(h.app, second.username, second.password);
      const results = await Promise.all([
        updateRole(adminToken, second.email, 'standard'),
        updateRole(secondToken, ADMIN.email, 'standard'),
      ]);
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
      // The loser is refused by the last-admin rule (409) or, demoted first, by the role check (403).
      expect(results.find((r) => r.statusCode !== 200)!.statusCode).toBeOneOf([403, 409]);
      const admins = await h.deps.db
        .selectFrom('users')
        .select('email')
        .where('role', '=', 'admin')
        .execute();
      expect(admins).toHaveLength(1);
      // Leave the bootstrap admin as the only admin for the other tests.
      if (admins[0]!.email !== ADMIN.email) {
        await h.deps.db
          .updateTable('users')
          .set({ role: 'admin' })
          .where('email', '=', ADMIN.email)
          .execute();
        await h.deps.db
          .updateTable('users')
          .set({ role: 'standard' })
          .where('email', '=', second.email)
          .execute();
      }
    });
  });

  describe('bootstrap admin', () => {
    /** A second start on the same database (a restart or a deploy), with its own metrics registry. */
    async function restart() {
      const metrics = createMetrics('auth', false);
      const again = await buildApp(
        { ...h.deps, metrics, counters: authCounters(metrics) },
        { logger: false },
      );
      const started = await start(again);
      await again.close();
      await started.stop();
    }
    const roleOf = async (email: string) =>
      (await h.deps.db.selectFrom('users').select('role').where('email', '=', email).executeTakeFirst())
        ?.role;

    it('does not promote back an admin another admin demoted', async () => {
      const other = await userWithRole('admin');
      const otherToken = await loginToken(h.app, other.username, other.password);
      expect((await updateRole(otherToken, ADMIN.email, 'standard')).statusCode).toBe(200);
      await restart();
      expect(await roleOf(ADMIN.email)).toBe('standard');
      // Leave the bootstrap admin as the only admin for the other tests.
      expect((await grant(otherToken, ADMIN.email, 'admin')).statusCode).toBe(200);
      await onlyBootstrapAdmin();
    });

    it('does not promote whoever registers the email and name the admin moved away from', async () => {
      const renamed = { email: `moved-${Date.now()}@example.com`, username: `moved_${Date.now() % 1e6}` };
      await h.deps.db
        .updateTable('users')
        .set({ ...renamed, email_canonical: renamed.email })
        .where('email', '=', ADMIN.email)
        .execute();
      try {
        const squatter = await register(h.app, {
          ...newUser('standard'),
          email: ADMIN.email,
          username: ADMIN.username,
        });
        await restart();
        expect(await roleOf(squatter.email)).toBe('standard');
        expect(await roleOf(renamed.email)).toBe('admin');
        const users = await h.deps.db
          .selectFrom('users')
          .select('email')
          .where('role', '=', 'admin')
          .execute();
        expect(users.map((u) => u.email)).not.toContain(ADMIN.email);
        await h.deps.db.deleteFrom('users').where('email', '=', ADMIN.email).execute();
      } finally {
        await h.deps.db
          .updateTable('users')
          .set({ email: ADMIN.email, username: ADMIN.username })
          .where('email', '=', renamed.email)
          .execute();
      }
    });

    it('is created once, with one account, however often auth starts', async () => {
      await restart();
      await restart();
      const count = await h.deps.db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('email', '=', ADMIN.email)
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(1);
      expect(await roleOf(ADMIN.email)).toBe('admin');
    });
  });
});
