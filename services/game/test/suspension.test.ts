// An admin's suspension reaches the click path at once: auth tells the game directly
// (PUT /internal/users/:userId/suspension on the internal listener) and by an event; the click script
// refuses a suspended player with 403, code ACCOUNT_SUSPENDED and the operator's reason, on every game
// instance, and after Redis is rebuilt from Postgres; a token signed before the account's last security
// event is refused too. And the admin list's balances, one call per page.
import { randomUUID } from 'node:crypto';
import {
  ACCOUNT_SUSPENDED,
  GameBalances,
  INTERNAL_USER_BALANCES_PATH,
  internalUserSuspensionPath,
  makeEvent,
  SUBJECTS,
  UNLIMITED_CLICKS,
} from '@omc/contracts';
import { eventually, signAccessToken, internalCallHeaders } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGame, type Harness, type TestUser } from './support.js';

describe('suspended players cannot click', () => {
  let h: Harness;
  let adminToken: string;
  beforeAll(async () => {
    h = await startGame({ name: 'suspension', instances: 2, env: { CLICK_RATE_PER_USER: '100000' } });
    adminToken = await h.token({ id: randomUUID(), username: 'root', role: 'admin' });
  });
  afterAll(async () => {
    await h?.close();
  });

  const tell = (
    userId: string,
    change: { suspended: boolean; reason: string | null; securityVersion: number },
    token = adminToken,
  ) =>
    h.app.game.internal.inject({
      method: 'PUT',
      url: internalUserSuspensionPath(userId),
      headers: { ...internalCallHeaders('auth', 'game'), authorization: `Bearer ${token}` },
      payload: change,
    });

  /** The player's access token as auth signs it: with the account's security version (`sv`). */
  const signed = (player: TestUser, sv: number) =>
    signAccessToken(h.keys.privateKey, { sub: player.id, username: player.username, role: 'standard', sv });

  const expectSuspendedRefusal = (response: { statusCode: number; json(): unknown }, reason: string) => {
    expect(response.statusCode).toBe(403);
    const body = response.json() as { code: string; message: string; error: string; msg: string };
    expect(body.code).toBe(ACCOUNT_SUSPENDED);
    expect(body.message).toContain(reason);
    expect(body.error).toBe(body.message);
  };

  it('refuses the very next click on every instance, with the reason, and spends nothing; a restore lets it click again', async () => {
    const player = await h.registerUser();
    expect((await h.click(player)).statusCode).toBe(200);
    const before = await h.balance(player);
    const counter = (await h.state()).globalClicks;

    const reason = 'Click farm: 40 accounts from one address';
    const told = await tell(player.id, { suspended: true, reason, securityVersion: 3 });
    expect(told.statusCode, told.body).toBe(200);
    expect(told.json()).toEqual({ suspended: true });
    for (const on of h.apps) expectSuspendedRefusal(await h.click(player, on), reason);
    expect((await h.balance(player)).freeClicks).toBe(before.freeClicks);
    expect((await h.state()).globalClicks).toBe(counter);

    const restored = await tell(player.id, { suspended: false, reason: null, securityVersion: 4 });
    expect(restored.json()).toEqual({ suspended: false });
    // The player signs in again: a token of the account's version now.
    const signedInAgain = { ...player, token: await signed(player, 4) };
    expect((await h.click(signedInAgain, h.apps[1])).statusCode).toBe(200);
  });

  it('is ordered by the security version: an older change, direct or by event, never undoes a newer one', async () => {
    const player = await h.registerUser();
    const reason = 'Chargebacks under review';
    expect((await tell(player.id, { suspended: true, reason, securityVersion: 7 })).statusCode).toBe(200);
    // A restore from before the suspension arrives late, told directly and then by its event.
    const late = await tell(player.id, { suspended: false, reason: null, securityVersion: 6 });
    expect(late.json()).toEqual({ suspended: true });
    await h.publish(
      makeEvent(SUBJECTS.userAccessChanged, {
        userId: player.id,
        suspended: false,
        reason: null,
        securityVersion: 5,
      }),
    );
    await new Promise((r) => setTimeout(r, 500));
    expectSuspendedRefusal(await h.click(player), reason);
  });

  it('takes the event alone when the direct call never came', async () => {
    const player = await h.registerUser();
    const reason = 'Bot traffic';
    await h.publish(
      makeEvent(SUBJECTS.userAccessChanged, {
        userId: player.id,
        suspended: true,
        reason,
        securityVersion: 2,
      }),
    );
    await eventually(async () => (await h.click(player)).statusCode === 403, 'the suspension applied');
    expectSuspendedRefusal(await h.click(player), reason);
  });

  it('survives Redis losing its data: the rebuild loads the suspension from Postgres', async () => {
    const player = await h.registerUser();
    const reason = 'Stolen card purchases';
    await tell(player.id, { suspended: true, reason, securityVersion: 9 });
    await h.restartRedisEmpty();
    await eventually(
      async () => (await h.app.inject('/api/game/state')).statusCode === 200,
      'game answers again',
    );
    expectSuspendedRefusal(await h.click(player), reason);
  });

  it("refuses a token signed before the account's last security event, and takes the new one", async () => {
    const player = await h.registerUser();
    const before = { ...player, token: await signed(player, 2) };
    expect((await h.click(before)).statusCode).toBe(200);
    // A password reset (or an email undo, or sign out everywhere) raised the version to 3.
    await h.publish(
      makeEvent(SUBJECTS.userAccessChanged, {
        userId: player.id,
        suspended: false,
        reason: null,
        securityVersion: 3,
      }),
    );
    await eventually(async () => (await h.click(before)).statusCode === 401, 'the old token refused');
    for (const on of h.apps) {
      const refused = await h.click(before, on);
      expect(refused.statusCode).toBe(401);
      expect(refused.json().message).toMatch(/security change/);
    }
    const after = { ...player, token: await signed(player, 3) };
    expect((await h.click(after)).statusCode).toBe(200);
    // Redis rebuilt from Postgres keeps the version.
    await h.restartRedisEmpty();
    await eventually(
      async () => (await h.app.inject('/api/game/state')).statusCode === 200,
      'game answers again',
    );
    expect((await h.click(before)).statusCode).toBe(401);
    expect((await h.click(after)).statusCode).toBe(200);
  });

  it('answers only an admin, on the internal listener, and names a bad body', async () => {
    const player = await h.registerUser();
    const playerToken = await h.token({ id: player.id, username: player.username, role: 'standard' });
    expect(
      (await tell(player.id, { suspended: true, reason: 'x', securityVersion: 1 }, playerToken)).statusCode,
    ).toBe(403);
    const bad = await h.app.game.internal.inject({
      method: 'PUT',
      url: internalUserSuspensionPath(player.id),
      headers: { ...internalCallHeaders('auth', 'game'), authorization: `Bearer ${adminToken}` },
      payload: { suspended: 'yes', reason: null, securityVersion: 1 },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/suspended/);
    const onPublic = await h.app.inject({
      method: 'PUT',
      url: internalUserSuspensionPath(player.id),
      headers: { ...internalCallHeaders('auth', 'game'), authorization: `Bearer ${adminToken}` },
      payload: { suspended: true, reason: 'x', securityVersion: 1 },
    });
    expect(onPublic.statusCode).toBe(404);
    expect((await h.click(player)).statusCode).toBe(200);
  });
});

describe("the admin list's balances", () => {
  let h: Harness;
  let adminToken: string;
  beforeAll(async () => {
    h = await startGame({ name: 'balances', env: { CLICK_RATE_PER_USER: '100000' } });
    adminToken = await h.token({ id: randomUUID(), username: 'root', role: 'admin' });
  });
  afterAll(async () => {
    await h?.close();
  });

  const balances = (userIds: unknown, token = adminToken) =>
    h.app.game.internal.inject({
      method: 'POST',
      url: INTERNAL_USER_BALANCES_PATH,
      headers: { ...internalCallHeaders('auth', 'game'), authorization: `Bearer ${token}` },
      payload: { userIds },
    });

  it("answers a page's balances in one call, from Redis or Postgres, leaving out ids the game does not know", async () => {
    const [clicker, idle] = await h.registerUsers(2);
    const superuser = await h.registerUser('superuser');
    for (let i = 0; i < 3; i++) expect((await h.click(clicker as TestUser)).statusCode).toBe(200);
    const unknown = randomUUID();
    const response = await balances([clicker!.id, idle!.id, superuser.id, unknown]);
    expect(response.statusCode, response.body).toBe(200);
    const answer = GameBalances.parse(response.json());
    expect(answer.balances).toEqual({
      [clicker!.id]: { freeClicks: 7, purchasedClicks: 0, hasInfiniteClicks: false },
      [idle!.id]: { freeClicks: 10, purchasedClicks: 0, hasInfiniteClicks: false },
      [superuser.id]: { freeClicks: UNLIMITED_CLICKS, purchasedClicks: 0, hasInfiniteClicks: true },
    });
    // Each agrees with what the player's own profile says.
    expect(await h.balance(clicker!)).toMatchObject(answer.balances[clicker!.id]!);
  });

  it('refuses a player, more than 100 ids and ids that are not user ids, naming the problem', async () => {
    const player = await h.registerUser();
    expect((await balances([player.id], player.token)).statusCode).toBe(403);
    const many = await balances(Array.from({ length: 101 }, () => randomUUID()));
    expect(many.statusCode).toBe(400);
    expect(many.json().message).toMatch(/100/);
    const bad = await balances(['not-an-id']);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/userIds/);
  });
});
