// The operator's tools in auth: finding a player (search and pages), suspending and restoring an
// account, and the audit log of admin actions and account-security events.
import {
  ACCOUNT_SUSPENDED,
  AdminUsersPage,
  AdminUsersResponse,
  AuditPage,
  ErrorBody,
  SUBJECTS,
  SuspensionResponse,
} from '@omc/contracts';
import { createDb, migrateToLatest } from '@omc/service-kit';
import { eventually, freshDatabase } from '@omc/testkit';
import { adminToolsMigration } from '../src/db/migrations/0015_admin_tools.js';
import { migrations } from '../src/db/migrations/index.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  bootstrapAdminId,
  bearer,
  fromPayments,
  freshIp,
  login,
  loginToken,
  newUser,
  register,
  startAuth,
  type AuthHarness,
} from './support.js';

describe('operator tools', () => {
  let h: AuthHarness;
  let adminToken: string;
  let adminId: string;
  const adminIp = '198.51.100.7';
  beforeAll(async () => {
    h = await startAuth();
    adminToken = await loginToken(h.app, ADMIN.username, ADMIN.password);
    adminId = await bootstrapAdminId(h);
  });
  afterAll(async () => {
    await h?.close();
  });

  const asAdmin = (token = adminToken) => ({ ...bearer(token), 'x-forwarded-for': adminIp });
  const users = (query: string, token = adminToken) =>
    h.app.inject({ url: `/api/admin/users${query}`, headers: asAdmin(token) });
  const suspend = (id: string, reason: unknown, token = adminToken) =>
    h.app.inject({
      method: 'POST',
      url: `/api/admin/users/${id}/suspend`,
      headers: asAdmin(token),
      payload: { reason },
    });
  const restore = (id: string, reason: unknown, token = adminToken) =>
    h.app.inject({
      method: 'POST',
      url: `/api/admin/users/${id}/restore`,
      headers: asAdmin(token),
      payload: { reason },
    });
  const audit = (query = '', token = adminToken) =>
    h.app.inject({ url: `/api/admin/audit${query}`, headers: asAdmin(token) });
  const expectRefusal = (
    response: { statusCode: number; json(): unknown },
    status: number,
    field?: string,
  ) => {
    expect(response.statusCode).toBe(status);
    const body = ErrorBody.parse(response.json());
    if (field) {
      expect(body.field).toBe(field);
      expect(body.message).toContain(field);
    }
    return body;
  };

  describe('finding a player', () => {
    it('without parameters answers the original list, nothing more per user', async () => {
      await register(h.app);
      const response = await users('');
      expect(response.statusCode).toBe(200);
      const body = AdminUsersResponse.parse(response.json());
      for (const user of (response.json() as { users: object[] }).users)
        expect(Object.keys(user).sort()).toEqual(['email', 'role', 'username']);
      expect(body.users.length).toBeGreaterThanOrEqual(2);
      expect(Object.keys(response.json() as object)).toEqual(['users']);
    });

    it('refuses text Postgres cannot store in the search with a 400 naming query, never a 500', async () => {
      for (const query of ['%00', 'ab%00', '%FF', '%ED%A0%80']) {
        const response = await users(`?query=${query}`);
        expect(response.statusCode, `${query}: ${response.body}`).toBe(400);
        expect(ErrorBody.parse(response.json())).toMatchObject({ code: 'BAD_REQUEST', field: 'query' });
      }
      expect((await users('?query=ab')).statusCode).toBe(200);
    });

    it('searches a username prefix page by page, each user once, with status and creation time', async () => {
      const stem = `pg${Date.now().toString(36).slice(-5)}`;
      const made = [];
      for (let i = 0; i < 5; i += 1) made.push(await register(h.app, newUser(`${stem}_${i}`)));
      // Another name that sorts beside them but does not match the prefix is not listed (its last
      // letter differs from the stem's: a stem that ends in z once made it match, one run in 36).
      await register(h.app, newUser(`${stem.slice(0, -1)}${stem.endsWith('z') ? 'y' : 'z'}`));
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `?query=${stem.toUpperCase()}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
        const response = await users(query);
        expect(response.statusCode, response.body).toBe(200);
        const page = AdminUsersPage.parse(response.json());
        expect(page.users.length).toBeLessThanOrEqual(2);
        for (const user of page.users) {
          seen.push(user.username);
          expect(user).toMatchObject({
            role: 'standard',
            verified: false,
            suspended: false,
            suspendedReason: null,
          });
          expect(Number.isNaN(Date.parse(user.createdAt))).toBe(false);
        }
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor && pages < 10);
      expect(pages).toBe(3);
      expect(seen.sort()).toEqual(made.map((u) => u.username).sort());
    });

    it('searches an email prefix when the query holds an @', async () => {
      const user = await register(h.app);
      const response = await users(`?query=${encodeURIComponent(user.email.toUpperCase())}`);
      const page = AdminUsersPage.parse(response.json());
      expect(page.users.map((u) => u.id)).toEqual([user.id]);
      // LIKE's wildcards are taken literally.
      expect(AdminUsersPage.parse((await users('?query=%25')).json()).users).toEqual([]);
    });

    it('uses an index for the search, whatever the table size', async () => {
      const plan = await h.deps.db.transaction().execute(async (trx) => {
        await sql`SET LOCAL enable_seqscan = off`.execute(trx);
        return sql<{ 'QUERY PLAN': string }>`EXPLAIN SELECT * FROM users
          WHERE (lower(username) COLLATE "C") LIKE ${'ab%'} COLLATE "C"
          ORDER BY (lower(username) COLLATE "C"), id LIMIT 51`.execute(trx);
      });
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('users_username_search');
    });

    it('refuses a limit over 100, a forged cursor and a player, naming the problem', async () => {
      expectRefusal(await users('?limit=101'), 400, 'limit');
      expectRefusal(await users('?limit=0'), 400, 'limit');
      expectRefusal(await users('?cursor=bm90LWEtY3Vyc29y'), 400, 'cursor');
      const player = await register(h.app);
      expectRefusal(await users('?query=a', player.token), 403);
    });
  });

  describe('suspending and restoring', () => {
    it('a suspended player is signed out at once, cannot sign in, and is told why; restore lets them back', async () => {
      const player = await register(h.app);
      const reason = 'Click farm: 40 accounts from one address';
      const response = await suspend(player.id, reason);
      expect(response.statusCode, response.body).toBe(200);
      expect(SuspensionResponse.parse(response.json()).user).toMatchObject({
        id: player.id,
        suspended: true,
        suspendedReason: reason,
      });

      // The access token still within its 15 minutes is refused, with the reason, here and on money paths.
      for (const url of ['/api/user/profile', '/internal/account']) {
        const headers = url.startsWith('/internal') ? fromPayments(player.token) : bearer(player.token);
        const refused = expectRefusal(await h.app.inject({ url, headers }), 401);
        expect(refused.code).toBe(ACCOUNT_SUSPENDED);
        expect(refused.message).toContain(reason);
      }
      // The refresh cookie is revoked.
      const refresh = await h.app.inject({
        method: 'POST',
        url: '/api/user/refresh',
        cookies: { omc_refresh: player.refresh },
      });
      expect(refresh.statusCode).toBe(401);
      // Signing in with the right password says why; a wrong one learns nothing.
      const signIn = expectRefusal(await login(h.app, player.username, player.password), 403);
      expect(signIn.code).toBe(ACCOUNT_SUSPENDED);
      expect(signIn.message).toContain(reason);
      expect(
        ErrorBody.parse((await login(h.app, player.username, 'wrong-password')).json()).message,
      ).not.toContain(reason);
      // The admin list shows it.
      const listed = AdminUsersPage.parse((await users(`?query=${player.username}`)).json()).users[0];
      expect(listed).toMatchObject({ suspended: true, suspendedReason: reason });

      // Suspending again changes nothing and writes nothing.
      const again = await suspend(player.id, 'second time');
      expect(again.statusCode).toBe(200);
      expect(SuspensionResponse.parse(again.json()).user.suspendedReason).toBe(reason);

      const restored = await restore(player.id, 'Appeal accepted');
      expect(restored.statusCode).toBe(200);
      expect(SuspensionResponse.parse(restored.json()).user).toMatchObject({
        suspended: false,
        suspendedReason: null,
      });
      expect((await login(h.app, player.username, player.password)).statusCode).toBe(200);

      const entries = AuditPage.parse((await audit(`?targetId=${player.id}`)).json()).entries;
      expect(entries.map((e) => e.action)).toEqual(['user.restored', 'user.suspended']);
      expect(entries[1]).toMatchObject({
        actor: { id: adminId, label: ADMIN.username },
        target: { id: player.id, label: player.username },
        detail: { reason },
        ip: adminIp,
      });
      expect(entries[0]!.detail).toMatchObject({ reason: 'Appeal accepted', suspendedReason: reason });
    });

    it('is for admins only, and refuses bad input naming it, an unknown account, an admin and oneself', async () => {
      const player = await register(h.app);
      const other = await register(h.app);
      expectRefusal(await suspend(other.id, 'because I can', player.token), 403);
      expectRefusal(await restore(other.id, 'because I can', player.token), 403);
      expectRefusal(await suspend(other.id, ''), 400, 'reason');
      expectRefusal(await suspend(other.id, 42), 400, 'reason');
      expectRefusal(await suspend(other.id, 'x'.repeat(501)), 400, 'reason');
      expectRefusal(await suspend('not-a-uuid', 'a good reason'), 400, 'id');
      expectRefusal(await suspend('00000000-0000-4000-8000-000000000000', 'a good reason'), 404);
      expectRefusal(await suspend(adminId, 'a good reason'), 409);
      const guest = await h.app.inject({
        method: 'POST',
        url: `/api/admin/users/${other.id}/suspend`,
        payload: {},
      });
      expect(guest.statusCode).toBe(401);
      expect(AuditPage.parse((await audit(`?targetId=${other.id}`)).json()).entries).toEqual([]);
    });
  });

  describe('the audit log', () => {
    it('names the admin who changed a role, with what changed and from where', async () => {
      // A demotion: one admin's act (a grant of superuser or admin needs two: approvals.test.ts).
      const player = await register(h.app);
      await h.deps.db.updateTable('users').set({ role: 'superuser' }).where('id', '=', player.id).execute();
      const response = await h.app.inject({
        method: 'POST',
        url: '/api/admin/updateRole',
        headers: asAdmin(),
        payload: { email: player.email, role: 'standard' },
      });
      expect(response.statusCode).toBeLessThan(300);
      const [entry] = AuditPage.parse(
        (await audit(`?action=role.changed&targetId=${player.id}`)).json(),
      ).entries;
      expect(entry).toMatchObject({
        action: 'role.changed',
        actor: { id: adminId, label: ADMIN.username },
        target: { id: player.id, label: player.username },
        detail: { from: 'superuser', to: 'standard' },
        ip: adminIp,
      });
      // The role event the other services hear names the admin too.
      await eventually(
        () => h.events.of(SUBJECTS.userRoleChanged).some((e) => e.data.userId === player.id),
        'the role event',
      );
      const event = h.events.of(SUBJECTS.userRoleChanged).find((e) => e.data.userId === player.id)!;
      expect(event.data).toMatchObject({ role: 'standard', previousRole: 'superuser', changedBy: adminId });
    });

    it("records a player's own security events: password change and sign out everywhere", async () => {
      const player = await register(h.app);
      const ip = freshIp();
      const changed = await h.app.inject({
        method: 'PUT',
        url: '/api/user/change-password',
        headers: { ...bearer(player.token), 'x-forwarded-for': ip },
        payload: { currentPassword: player.password, newPassword: 'another-pass-1' },
      });
      expect(changed.statusCode, changed.body).toBe(200);
      const token = (changed.json() as { token: string }).token;
      const ended = await h.app.inject({
        method: 'DELETE',
        url: '/api/user/sessions',
        headers: { ...bearer(token), 'x-forwarded-for': ip },
      });
      expect(ended.statusCode, ended.body).toBe(200);
      const entries = AuditPage.parse((await audit(`?targetId=${player.id}`)).json()).entries;
      expect(entries.map((e) => e.action)).toEqual(['sessions.ended_everywhere', 'password.changed']);
      for (const entry of entries) expect(entry).toMatchObject({ actor: { id: player.id }, ip });
    });

    it('pages newest first and filters; bad filters are 400s naming them; players get 403', async () => {
      const page1 = AuditPage.parse((await audit('?limit=1')).json());
      expect(page1.entries).toHaveLength(1);
      expect(page1.nextCursor).toBeTruthy();
      const page2 = AuditPage.parse((await audit(`?limit=1&cursor=${page1.nextCursor}`)).json());
      expect(Number(page2.entries[0]!.id)).toBeLessThan(Number(page1.entries[0]!.id));
      for (const entry of AuditPage.parse((await audit('?action=user.suspended')).json()).entries)
        expect(entry.action).toBe('user.suspended');
      expectRefusal(await audit('?action=user.deleted_everything'), 400, 'action');
      expectRefusal(await audit('?targetId=nope'), 400, 'targetId');
      expectRefusal(await audit('?limit=1000'), 400, 'limit');
      const player = await register(h.app);
      expectRefusal(await audit('', player.token), 403);
    });

    it("records the house pot collected by payments for the admin whose token it forwards, and no one else's", async () => {
      const record = {
        action: 'house.collected',
        detail: { transactionId: 'payout-1', amount: 12.5 },
        ip: '203.0.113.9',
      };
      const post = (token: string, payload: object) =>
        h.app.inject({ method: 'POST', url: '/internal/audit', headers: fromPayments(token), payload });
      expect((await post(adminToken, record)).statusCode).toBe(200);
      const [entry] = AuditPage.parse((await audit('?action=house.collected&limit=1')).json()).entries;
      expect(entry).toMatchObject({
        actor: { id: adminId, label: ADMIN.username },
        detail: record.detail,
        ip: record.ip,
      });
      const player = await register(h.app);
      expectRefusal(await post(player.token, record), 403);
      expectRefusal(await post(adminToken, { ...record, action: 'user.deleted' }), 400, 'action');
    });

    it('records a refund payments carried out, naming the admin and the buyer', async () => {
      const buyer = await register(h.app);
      const buyerId = buyer.id;
      const record = {
        action: 'purchase.refunded',
        targetId: buyerId,
        detail: {
          purchaseId: 'p-1',
          kind: 'void',
          amount: 4.99,
          reason: 'Charged twice',
          passTakenBack: false,
        },
        ip: '203.0.113.10',
      };
      const post = (token: string, payload: object) =>
        h.app.inject({ method: 'POST', url: '/internal/audit', headers: fromPayments(token), payload });
      expect((await post(adminToken, record)).statusCode).toBe(200);
      const [entry] = AuditPage.parse(
        (await audit(`?action=purchase.refunded&targetId=${buyerId}`)).json(),
      ).entries;
      expect(entry).toMatchObject({
        actor: { id: adminId, label: ADMIN.username },
        target: { id: buyerId, label: buyer.username },
        detail: record.detail,
        ip: record.ip,
      });
      expectRefusal(await post(buyer.token, record), 403);
    });

    it('cannot be edited or deleted: no route does it, and the table refuses it', async () => {
      for (const method of ['PUT', 'PATCH', 'DELETE', 'POST'] as const) {
        const response = await h.app.inject({
          method,
          url: '/api/admin/audit',
          headers: asAdmin(),
          payload: {},
        });
        expect(response.statusCode, method).toBe(404);
      }
      await expect(h.deps.db.updateTable('audit_log').set({ action: 'x' }).execute()).rejects.toThrow(
        /append-only/,
      );
      await expect(h.deps.db.deleteFrom('audit_log').execute()).rejects.toThrow(/append-only/);
      await expect(sql`TRUNCATE audit_log`.execute(h.deps.db)).rejects.toThrow(/append-only/);
    });
  });
});

describe('migration 0015_admin_tools', () => {
  it('goes down and up again on a migrated database', async () => {
    const database = await freshDatabase();
    const db = createDb(database.url, { max: 1 });
    try {
      await migrateToLatest(db, migrations);
      await adminToolsMigration.down!(db);
      const tables = await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'audit_log'`.execute(db);
      expect(tables.rows[0]!.n).toBe(0);
      const columns = await sql<{ n: number }>`SELECT count(*)::int AS n FROM information_schema.columns
        WHERE table_name = 'users' AND column_name LIKE 'suspended%'`.execute(db);
      expect(columns.rows[0]!.n).toBe(0);
      await adminToolsMigration.up(db);
      await sql`INSERT INTO audit_log (action) VALUES ('user.suspended')`.execute(db);
      await expect(sql`DELETE FROM audit_log`.execute(db)).rejects.toThrow(/append-only/);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
