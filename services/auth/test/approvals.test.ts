// Two admins for the acts that hand over the game or its money: a grant of superuser or admin, and the
// house payout. One admin asks (with a recent password), another approves or refuses; requests expire;
// each step is audited and mailed to every admin.
import { ERROR_CODE, SUBJECTS, type Approval } from '@omc/contracts';
import { eventually } from '@omc/testkit';
import type { AuthApp } from '../src/app.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ADMIN,
  bootstrapAdminId,
  bearer,
  loginToken,
  newUser,
  register,
  secondAdmin,
  startAuth,
  type AuthHarness,
} from './support.js';

const post = (h: AuthHarness, url: string, token: string, payload?: unknown) =>
  h.app.inject({
    method: 'POST',
    url,
    headers: bearer(token),
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });

const roleOf = async (h: AuthHarness, id: string) =>
  (await h.deps.db.selectFrom('users').select('role').where('id', '=', id).executeTakeFirstOrThrow()).role;

const auditOf = async (h: AuthHarness, approvalId: string) =>
  (await h.deps.db.selectFrom('audit_log').selectAll().orderBy('id').execute()).filter(
    (row) => (row.detail as { approvalId?: string }).approvalId === approvalId,
  );

/** Every admin's mail about the request at this step (mailed in each admin's language). */
const mailsAbout = (h: AuthHarness, address: string, words: RegExp) =>
  h.mail.waitFor(address.toLowerCase(), (m) => words.test(m.text));

describe('two admins for privileged acts', () => {
  let h: AuthHarness;
  let root: string;
  let second: Awaited<ReturnType<typeof secondAdmin>>;
  beforeAll(async () => {
    h = await startAuth();
    second = await secondAdmin(h);
    // English mail for the second admin, so the test reads words in both languages.
    await h.deps.db
      .updateTable('users')
      .set({ preferred_language: 'en' })
      .where('id', '=', second.id)
      .execute();
  });
  beforeEach(async () => {
    root = await loginToken(h.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => {
    await h?.close();
  });

  it.each(['admin', 'superuser'] as const)(
    'a grant of %s by one admin is only a pending request until a second admin approves it',
    async (role) => {
      const player = await register(h.app, newUser(`to_${role}`));
      const asked = await post(h, '/api/admin/updateRole', root, { email: player.email, role });
      expect(asked.statusCode).toBe(202);
      expect(asked.json().message).toMatch(/second admin/);
      const approval = asked.json().approval as Approval;
      expect(approval).toMatchObject({ kind: 'role', status: 'pending', role, target: { id: player.id } });
      // Nothing changed: not the role, not the game, no role event.
      expect(await roleOf(h, player.id)).toBe('standard');
      expect(h.game.roleCalls.filter((c) => c.userId === player.id)).toEqual([]);

      // Asked again while pending: the same request, not a second one.
      const again = await post(h, '/api/admin/updateRole', root, { email: player.email, role });
      expect(again.statusCode).toBe(202);
      expect(again.json().approval.id).toBe(approval.id);

      // The second admin sees it in the list, and approves it.
      const list = await h.app.inject({
        url: '/api/admin/approvals?status=pending',
        headers: bearer(second.token),
      });
      expect(list.statusCode).toBe(200);
      expect(list.json().approvals.map((a: Approval) => a.id)).toContain(approval.id);
      const approved = await post(h, `/api/admin/approvals/${approval.id}/approve`, second.token, {});
      expect(approved.statusCode).toBe(200);
      expect(approved.json().approval).toMatchObject({ status: 'approved', decidedBy: { id: second.id } });
      expect(await roleOf(h, player.id)).toBe(role);
      expect(h.game.roleCalls.filter((c) => c.userId === player.id).map((c) => c.body.role)).toEqual([role]);
      await eventually(
        async () => h.events.of(SUBJECTS.userRoleChanged).some((e) => e.data.userId === player.id),
        'the role event',
      );

      // Audited: the request, the approval, and the role change naming the approval.
      const audit = await auditOf(h, approval.id);
      expect(audit.map((row) => [row.action, row.actor_id])).toEqual([
        ['approval.requested', expect.any(String)],
        ['role.changed', second.id],
        ['approval.approved', second.id],
      ]);
      // Mailed to every admin, each in their language.
      await mailsAbout(
        h,
        ADMIN.email,
        new RegExp(`dar el rol ${role} a ${player.username}[\\s\\S]*caduca en 24 horas`),
      );
      await mailsAbout(
        h,
        second.email,
        new RegExp(`give the ${role} role to ${player.username}[\\s\\S]*expires in 24`),
      );
      await mailsAbout(h, ADMIN.email, new RegExp(`${second.username} la ha aprobado`));
      await mailsAbout(h, second.email, new RegExp(`${second.username} approved it`));
    },
  );

  it('the admin who asked cannot approve (or refuse) their own request', async () => {
    const player = await register(h.app, newUser('self'));
    const asked = await post(h, '/api/admin/updateRole', root, { email: player.email, role: 'admin' });
    const id = asked.json().approval.id as string;
    for (const action of ['approve', 'refuse']) {
      const own = await post(h, `/api/admin/approvals/${id}/${action}`, root, {});
      expect(own.statusCode, action).toBe(403);
      expect(own.json().code).toBe(ERROR_CODE.APPROVAL_OWN_REQUEST);
    }
    expect(await roleOf(h, player.id)).toBe('standard');
    const list = await h.app.inject({ url: '/api/admin/approvals', headers: bearer(root) });
    expect(list.json().approvals.find((a: Approval) => a.id === id).status).toBe('pending');
  });

  it('a refused request does nothing and cannot be approved later; refusal is audited and mailed', async () => {
    const player = await register(h.app, newUser('refused'));
    const id = (
      await post(h, '/api/admin/updateRole', root, { email: player.email, role: 'superuser' })
    ).json().approval.id as string;
    const refused = await post(h, `/api/admin/approvals/${id}/refuse`, second.token, { reason: 'not staff' });
    expect(refused.statusCode).toBe(200);
    expect(refused.json().approval.status).toBe('refused');
    const late = await post(h, `/api/admin/approvals/${id}/approve`, second.token, {});
    expect(late.statusCode).toBe(409);
    expect(late.json().code).toBe(ERROR_CODE.APPROVAL_CLOSED);
    expect(await roleOf(h, player.id)).toBe('standard');
    const audit = await auditOf(h, id);
    expect(audit.map((row) => row.action)).toEqual(['approval.requested', 'approval.refused']);
    expect(audit[1]!.detail).toMatchObject({ reason: 'not staff' });
    await mailsAbout(h, second.email, new RegExp(`${second.username} refused it[\\s\\S]*Reason: not staff`));
  });

  it('a request not approved within APPROVAL_TTL_HOURS expires: audited, mailed, and approving it is refused', async () => {
    const player = await register(h.app, newUser('expiring'));
    const asked = (
      await post(h, '/api/admin/updateRole', root, { email: player.email, role: 'admin' })
    ).json().approval as Approval;
    expect(Date.parse(asked.expiresAt) - Date.parse(asked.createdAt)).toBe(24 * 3_600_000);
    // A day passes (the expiry moved back rather than the clock forward).
    await h.deps.db
      .updateTable('approvals')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('id', '=', asked.id)
      .execute();
    const list = await h.app.inject({ url: '/api/admin/approvals', headers: bearer(second.token) });
    expect(list.json().approvals.find((a: Approval) => a.id === asked.id).status).toBe('expired');
    const late = await post(h, `/api/admin/approvals/${asked.id}/approve`, second.token, {});
    expect(late.statusCode).toBe(409);
    expect(late.json().code).toBe(ERROR_CODE.APPROVAL_CLOSED);
    expect(late.json().message).toMatch(/expired/);
    expect(await roleOf(h, player.id)).toBe('standard');
    const audit = await auditOf(h, asked.id);
    expect(audit.map((row) => [row.action, row.actor_id])).toEqual([
      ['approval.requested', expect.any(String)],
      ['approval.expired', null],
    ]);
    await mailsAbout(
      h,
      second.email,
      new RegExp(`give the admin role to ${player.username}[\\s\\S]*expired`),
    );
  });

  it('the house payout waits for a second admin, then payments pays the admin who asked', async () => {
    const rootId = await bootstrapAdminId(h);
    // The original client posts no body.
    const asked = await h.app.inject({ method: 'POST', url: '/api/admin/collect', headers: bearer(root) });
    expect(asked.statusCode).toBe(202);
    const approval = asked.json().approval as Approval;
    expect(approval).toMatchObject({ kind: 'housePayout', status: 'pending', requestedBy: { id: rootId } });
    expect(h.payments.housePayoutCalls).toEqual([]);

    expect((await post(h, `/api/admin/approvals/${approval.id}/approve`, root, {})).statusCode).toBe(403);
    expect(h.payments.housePayoutCalls).toEqual([]);

    const approved = await post(h, `/api/admin/approvals/${approval.id}/approve`, second.token, {});
    expect(approved.statusCode).toBe(200);
    expect(approved.json().payout).toEqual({ transactionId: 'house-batch-1', amount: 12.5 });
    expect(approved.json().approval.outcome).toEqual({ transactionId: 'house-batch-1', amount: 12.5 });
    // Payments is told who asked (not who approved), with auth's own service credential.
    expect(h.payments.housePayoutCalls).toHaveLength(1);
    expect(h.payments.housePayoutCalls[0]!.body).toMatchObject({
      approvalId: approval.id,
      userId: rootId,
      role: 'admin',
    });
    expect(h.payments.housePayoutCalls[0]!.credential).toEqual(expect.any(String));

    const audit = await auditOf(h, approval.id);
    expect(audit.map((row) => row.action)).toEqual([
      'approval.requested',
      'approval.approved',
      'house.collected',
    ]);
    expect(audit[2]).toMatchObject({ actor_id: rootId, detail: { transactionId: 'house-batch-1' } });
    await mailsAbout(
      h,
      second.email,
      new RegExp(`pay the whole house pot to the PayPal account of ${ADMIN.username}`),
    );
    await mailsAbout(h, ADMIN.email, new RegExp(`${second.username} la ha aprobado y se ha llevado a cabo`));
  });

  it('a payout payments refuses reaches the approver as payments said it, and is recorded on the request', async () => {
    h.payments.housePayoutAnswer = {
      status: 409,
      body: { code: 'CONFLICT', message: 'Nothing to collect: the house balance is 0' },
    };
    try {
      const id = (await post(h, '/api/admin/collect', root, {})).json().approval.id as string;
      const approved = await post(h, `/api/admin/approvals/${id}/approve`, second.token, {});
      expect(approved.statusCode).toBe(409);
      expect(approved.json().message).toBe('Nothing to collect: the house balance is 0');
      const list = await h.app.inject({ url: '/api/admin/approvals', headers: bearer(second.token) });
      expect(list.json().approvals.find((a: Approval) => a.id === id)).toMatchObject({
        status: 'approved',
        outcome: { error: 'Nothing to collect: the house balance is 0' },
      });
      await mailsAbout(h, second.email, new RegExp(`approved it, but it could not be carried out`));
      expect((await auditOf(h, id)).map((row) => row.action)).toEqual([
        'approval.requested',
        'approval.approved',
        'approval.failed',
      ]);
    } finally {
      h.payments.housePayoutAnswer = { status: 200, body: { transactionId: 'house-batch-1', amount: 12.5 } };
    }
  });

  it('a JSON null or an unknown key is a 400, no body is none', async () => {
    for (const payload of ['null', '{"password":"x"}', '[]']) {
      const answer = await h.app.inject({
        method: 'POST',
        url: '/api/admin/collect',
        headers: { ...bearer(root), 'content-type': 'application/json' },
        payload,
      });
      expect(answer.statusCode, payload).toBe(400);
    }
    const none = await h.app.inject({ method: 'POST', url: '/api/admin/collect', headers: bearer(root) });
    expect(none.statusCode).toBe(202);
  });

  it('the one-admin role change refuses a grant of superuser or admin, whoever calls it', async () => {
    const player = await register(h.app, newUser('direct'));
    const { admin } = (h.app as AuthApp).auth;
    const actor = { id: 'x', username: 'someone', ip: '127.0.0.1' };
    for (const role of ['admin', 'superuser'] as const)
      await expect(admin.updateRole(player.email, role, actor)).rejects.toThrow(/two-admin request/);
    expect(await roleOf(h, player.id)).toBe('standard');
  });

  it('demoting and granting standard stay one admin acts; a player sees no requests', async () => {
    const player = await register(h.app, newUser('plain'));
    await h.deps.db.updateTable('users').set({ role: 'superuser' }).where('id', '=', player.id).execute();
    const demoted = await post(h, '/api/admin/updateRole', root, { email: player.email, role: 'standard' });
    expect(demoted.statusCode).toBe(200);
    expect(await roleOf(h, player.id)).toBe('standard');
    const list = await h.app.inject({ url: '/api/admin/approvals', headers: bearer(player.token) });
    expect(list.statusCode).toBe(403);
    const collect = await post(h, '/api/admin/collect', player.token, {});
    expect(collect.statusCode).toBe(403);
  });
});

describe('a fresh password for privileged acts', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    // No window: every two-admin step needs the password typed now.
    h = await startAuth({ REAUTH_WINDOW_SECONDS: '0' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('asking and approving without the current password is a 400 naming it; a wrong one too', async () => {
    const root = await loginToken(h.app, ADMIN.username, ADMIN.password);
    const second = await secondAdmin(h);
    const player = await register(h.app, newUser('pw'));
    for (const payload of [
      { email: player.email, role: 'admin' },
      { email: player.email, role: 'admin', currentPassword: 'not-the-password' },
    ]) {
      const refused = await post(h, '/api/admin/updateRole', root, payload);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().field).toBe('currentPassword');
    }
    const collect = await h.app.inject({ method: 'POST', url: '/api/admin/collect', headers: bearer(root) });
    expect(collect.statusCode).toBe(400);
    expect(collect.json().field).toBe('currentPassword');
    expect(await h.deps.db.selectFrom('approvals').select('id').execute()).toEqual([]);

    const asked = await post(h, '/api/admin/updateRole', root, {
      email: player.email,
      role: 'admin',
      currentPassword: ADMIN.password,
    });
    expect(asked.statusCode).toBe(202);
    const id = asked.json().approval.id as string;
    const noPassword = await post(h, `/api/admin/approvals/${id}/approve`, second.token, {});
    expect(noPassword.statusCode).toBe(400);
    expect(noPassword.json().field).toBe('currentPassword');
    expect(await roleOf(h, player.id)).toBe('standard');
    const approved = await post(h, `/api/admin/approvals/${id}/approve`, second.token, {
      currentPassword: second.password,
    });
    expect(approved.statusCode).toBe(200);
    expect(await roleOf(h, player.id)).toBe('admin');
  });
});

describe('a deployment with one admin, and the rule once it has had two', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth({ REAUTH_WINDOW_SECONDS: '0' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('with one admin a grant and the house payout are made at once on the password, audited and mailed', async () => {
    const root = await loginToken(h.app, ADMIN.username, ADMIN.password);
    const player = await register(h.app, newUser('alone'));
    const stale = await post(h, '/api/admin/updateRole', root, { email: player.email, role: 'superuser' });
    expect(stale.statusCode).toBe(400);
    expect(stale.json().field).toBe('currentPassword');

    const granted = await post(h, '/api/admin/updateRole', root, {
      email: player.email,
      role: 'superuser',
      currentPassword: ADMIN.password,
    });
    expect(granted.statusCode).toBe(200);
    expect(granted.json().message).toBe('Role updated');
    const approval = granted.json().approval as Approval;
    expect(approval).toMatchObject({ status: 'approved', decidedBy: { username: ADMIN.username } });
    expect(await roleOf(h, player.id)).toBe('superuser');
    const audit = await auditOf(h, approval.id);
    expect(audit.map((row) => row.action)).toEqual([
      'approval.requested',
      'role.changed',
      'approval.approved',
    ]);
    expect(audit[2]!.detail).toMatchObject({ alone: true });
    await mailsAbout(h, ADMIN.email, new RegExp(ADMIN.username));

    const paid = await post(h, '/api/admin/collect', root, { currentPassword: ADMIN.password });
    expect(paid.statusCode).toBe(200);
    expect(paid.json()).toMatchObject({ transactionId: 'house-batch-1', approval: { status: 'approved' } });
    expect(h.payments.housePayoutCalls).toHaveLength(1);
  });

  it('once a second admin has existed, demoting them does not let the other act alone', async () => {
    const root = await loginToken(h.app, ADMIN.username, ADMIN.password);
    const second = await secondAdmin(h, 'latched');
    const withPassword = { currentPassword: ADMIN.password };
    const demoted = await post(h, '/api/admin/updateRole', root, {
      email: second.email,
      role: 'standard',
      ...withPassword,
    });
    expect(demoted.statusCode).toBe(200);
    const player = await register(h.app, newUser('latched_target'));
    const asked = await post(h, '/api/admin/updateRole', root, {
      email: player.email,
      role: 'admin',
      ...withPassword,
    });
    expect(asked.statusCode).toBe(202);
    expect(asked.json().approval).toMatchObject({ status: 'pending' });
    expect(await roleOf(h, player.id)).toBe('standard');
    const collect = await post(h, '/api/admin/collect', root, withPassword);
    expect(collect.statusCode).toBe(202);
    expect(h.payments.housePayoutCalls).toHaveLength(1);
  });
});
