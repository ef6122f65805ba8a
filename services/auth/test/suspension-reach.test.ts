// What a suspension reaches beyond auth's own routes: the game is told before the admin is answered (so
// the player's next click is refused) and by an event, both ordered by the security version; a refresh
// of the ended session says why; and the admin list's page shows each player's balances from one call
// to the game and one to payments per page.
import { ACCOUNT_SUSPENDED, AdminUsersPage, AdminUsersResponse, ErrorBody, SUBJECTS } from '@omc/contracts';
import { eventually } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, loginToken, register, startAuth, type AuthHarness } from './support.js';

describe('a suspension beyond auth', () => {
  let h: AuthHarness;
  let adminToken: string;
  beforeAll(async () => {
    h = await startAuth();
    adminToken = await loginToken(h.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => {
    await h?.close();
  });

  const act = (id: string, what: 'suspend' | 'restore', reason: string) =>
    h.app.inject({
      method: 'POST',
      url: `/api/admin/users/${id}/${what}`,
      headers: bearer(adminToken),
      payload: { reason },
    });
  const securityVersion = async (id: string) =>
    (
      await h.deps.db
        .selectFrom('users')
        .select('security_version')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).security_version;

  it('tells the game before answering, with the admin token, then announces it; a restore likewise, later in order', async () => {
    const player = await register(h.app);
    const reason = 'Click farm: 40 accounts from one address';
    expect((await act(player.id, 'suspend', reason)).statusCode).toBe(200);
    const suspendedAt = await securityVersion(player.id);
    const told = h.game.suspensionCalls.filter((c) => c.userId === player.id);
    expect(told).toEqual([
      {
        userId: player.id,
        body: { suspended: true, reason, securityVersion: suspendedAt },
        authorization: `Bearer ${adminToken}`,
      },
    ]);
    await eventually(
      () => h.events.of(SUBJECTS.userAccessChanged).some((e) => e.data.userId === player.id),
      'the suspension event',
    );
    expect(h.events.of(SUBJECTS.userAccessChanged).find((e) => e.data.userId === player.id)!.data).toEqual({
      userId: player.id,
      suspended: true,
      reason,
      securityVersion: suspendedAt,
    });

    // Suspending again tells no one.
    expect((await act(player.id, 'suspend', 'again')).statusCode).toBe(200);
    expect(h.game.suspensionCalls.filter((c) => c.userId === player.id)).toHaveLength(1);

    expect((await act(player.id, 'restore', 'Appeal accepted')).statusCode).toBe(200);
    const restoredAt = await securityVersion(player.id);
    expect(restoredAt).toBeGreaterThan(suspendedAt);
    expect(h.game.suspensionCalls.filter((c) => c.userId === player.id).at(-1)!.body).toEqual({
      suspended: false,
      reason: null,
      securityVersion: restoredAt,
    });
    await eventually(
      () =>
        h.events.of(SUBJECTS.userAccessChanged).some((e) => e.data.userId === player.id && !e.data.suspended),
      'the restore event',
    );
  });

  it('still suspends when the game does not answer: the event brings it there', async () => {
    const player = await register(h.app);
    h.game.mode = 'error';
    try {
      const response = await act(player.id, 'suspend', 'Chargebacks under review');
      expect(response.statusCode).toBe(200);
    } finally {
      h.game.mode = 'ok';
    }
    await eventually(
      () => h.events.of(SUBJECTS.userAccessChanged).some((e) => e.data.userId === player.id),
      'the suspension event',
    );
  });

  it('announces every raise of the security version with the whole access state, so the game refuses older tokens', async () => {
    const player = await register(h.app);
    const ended = await h.app.inject({
      method: 'DELETE',
      url: '/api/user/sessions',
      headers: bearer(player.token),
    });
    expect(ended.statusCode, ended.body).toBe(200);
    const version = await securityVersion(player.id);
    await eventually(
      () => h.events.of(SUBJECTS.userAccessChanged).some((e) => e.data.userId === player.id),
      'the access event',
    );
    expect(
      h.events
        .of(SUBJECTS.userAccessChanged)
        .filter((e) => e.data.userId === player.id)
        .map((e) => e.data),
    ).toEqual([{ userId: player.id, suspended: false, reason: null, securityVersion: version }]);
  });

  it('answers a refresh of the ended session with the suspension and its reason, and clears the cookie', async () => {
    const player = await register(h.app);
    const reason = 'Stolen card purchases';
    await act(player.id, 'suspend', reason);
    const refresh = await h.app.inject({
      method: 'POST',
      url: '/api/user/refresh',
      cookies: { omc_refresh: player.refresh },
    });
    expect(refresh.statusCode).toBe(401);
    const body = ErrorBody.parse(refresh.json());
    expect(body.code).toBe(ACCOUNT_SUSPENDED);
    expect(body.message).toContain(reason);
    expect(refresh.cookies.find((c) => c.name === 'omc_refresh')?.value ?? '').toBe('');
    // Once restored, the old session stays ended, without a word of the suspension.
    await act(player.id, 'restore', 'Appeal accepted');
    const after = await h.app.inject({
      method: 'POST',
      url: '/api/user/refresh',
      cookies: { omc_refresh: player.refresh },
    });
    expect(after.statusCode).toBe(401);
    expect(ErrorBody.parse(after.json()).message).not.toContain(reason);
  });
});

describe("the admin list's balances", () => {
  let h: AuthHarness;
  let adminToken: string;
  beforeAll(async () => {
    h = await startAuth();
    adminToken = await loginToken(h.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => {
    await h?.close();
  });
  const users = (query: string) =>
    h.app.inject({ url: `/api/admin/users${query}`, headers: bearer(adminToken) });

  it('shows clicks and money per player, asking the game and payments once per page', async () => {
    const rich = await register(h.app);
    const fresh = await register(h.app);
    h.game.balances.set(rich.id, { freeClicks: 7, purchasedClicks: 5, hasInfiniteClicks: false });
    h.payments.balances.set(rich.id, { potEarned: 12.5, spent: 4.97, paidOut: 3 });
    h.game.balances.set(fresh.id, { freeClicks: 10, purchasedClicks: 0, hasInfiniteClicks: false });
    const gameCalls = h.game.balanceCalls.length;
    const paymentsCalls = h.payments.balanceCalls.length;

    const page = AdminUsersPage.parse((await users('?limit=100')).json());
    expect(h.game.balanceCalls.length - gameCalls).toBe(1);
    expect(h.payments.balanceCalls.length - paymentsCalls).toBe(1);
    expect(h.game.balanceCalls.at(-1)).toEqual(page.users.map((u) => u.id));
    const byId = new Map(page.users.map((u) => [u.id, u.balances]));
    expect(byId.get(rich.id)).toEqual({
      freeClicks: 7,
      hasInfiniteClicks: false,
      potEarned: 12.5,
      spent: 4.97,
      paidOut: 3,
    });
    // Money never touched this player: zeros, not unknown.
    expect(byId.get(fresh.id)).toEqual({
      freeClicks: 10,
      hasInfiniteClicks: false,
      potEarned: 0,
      spent: 0,
      paidOut: 0,
    });
  });

  it('still answers when a service is down, with its figures null; the original list is unchanged', async () => {
    const player = await register(h.app);
    h.payments.mode = 'error';
    h.game.mode = 'hang';
    try {
      const page = AdminUsersPage.parse((await users(`?query=${player.username}`)).json());
      expect(page.users[0]!.balances).toEqual({
        freeClicks: null,
        hasInfiniteClicks: null,
        potEarned: null,
        spent: null,
        paidOut: null,
      });
    } finally {
      h.payments.mode = 'ok';
      h.game.mode = 'ok';
    }
    // The original client reads { users: [{ username, email, role }] } and nothing else.
    const calls = h.game.balanceCalls.length;
    const original = (await users('')).json() as { users: object[] };
    AdminUsersResponse.parse(original);
    for (const user of original.users)
      expect(Object.keys(user).sort()).toEqual(['email', 'role', 'username']);
    expect(h.game.balanceCalls.length).toBe(calls);
  });
});
