// Auth's direct call on a role change (PUT /internal/users/:userId/role): the very next click has the new
// role, the role event that follows changes nothing, an older change (by auth's role version, never by a
// date the caller sends) never wins, and only an admin's token may call it.
import { internalCallHeaders } from '@omc/testkit';
import { randomUUID } from 'node:crypto';
import { internalUserRolePath, makeEvent, SUBJECTS, UNLIMITED_CLICKS, type Role } from '@omc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGame, type Harness, type TestUser } from './support.js';

describe('role changes told by auth directly', () => {
  let h: Harness;
  let adminToken: string;
  beforeAll(async () => {
    // Clicks as fast as the test goes: the per-user limit is not what is tested here.
    h = await startGame({ name: 'role_sync', env: { CLICK_RATE_PER_USER: '100000' } });
    adminToken = await h.token({ id: randomUUID(), username: 'root', role: 'admin' });
  });
  afterAll(async () => {
    await h?.close();
  });

  const tell = (
    userId: string,
    role: Role | string,
    roleVersion: number | string,
    token: string | null = adminToken,
  ) =>
    h.app.game.internal.inject({
      method: 'PUT',
      url: internalUserRolePath(userId),
      headers: {
        ...internalCallHeaders('auth', 'game'),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      payload: { role, roleVersion },
    });

  const clickIsFree = async (user: TestUser) => {
    const answer = await h.click(user);
    return answer.statusCode === 200 && answer.json().freeClicks === UNLIMITED_CLICKS;
  };

  it('applies the role before it answers: the very next click has it, many times over', async () => {
    const user = await h.registerUser();
    for (let i = 0; i < 20; i++) {
      const raised = i % 2 === 0 ? 'superuser' : 'admin';
      const up = await tell(user.id, raised, 2 * i + 1);
      expect(up.statusCode).toBe(200);
      expect(up.json()).toEqual({ role: raised });
      expect(await clickIsFree(user), `#${i} promoted`).toBe(true);
      expect((await h.balance(user)).hasInfiniteClicks).toBe(true);
      const down = await tell(user.id, 'standard', 2 * i + 2);
      expect(down.json()).toEqual({ role: 'standard' });
      expect(await clickIsFree(user), `#${i} demoted`).toBe(false);
      expect((await h.balance(user)).hasInfiniteClicks).toBe(false);
    }
  });

  it("is versioned by auth's sequence: the same change again and its event are no-ops, an older change never wins", async () => {
    const user = await h.registerUser();
    const event = makeEvent(SUBJECTS.userRoleChanged, {
      userId: user.id,
      role: 'superuser',
      previousRole: 'standard',
      roleVersion: 41,
    });
    expect((await tell(user.id, 'superuser', 41)).statusCode).toBe(200);
    expect((await tell(user.id, 'superuser', 41)).json()).toEqual({ role: 'superuser' });
    // A later demotion told directly, then the older promotion's event and an older direct call arrive.
    expect((await tell(user.id, 'standard', 42)).json()).toEqual({ role: 'standard' });
    await h.publish(event);
    // An event from before versions (no roleVersion), however recent its date, changes nothing either.
    await h.publish(
      makeEvent(SUBJECTS.userRoleChanged, { userId: user.id, role: 'admin', previousRole: 'standard' }),
    );
    const older = await tell(user.id, 'admin', 41);
    expect(older.statusCode).toBe(200);
    expect(older.json()).toEqual({ role: 'standard' });
    // Give the event time to be consumed; the role stays the newer one.
    await new Promise((r) => setTimeout(r, 500));
    expect((await h.balance(user)).hasInfiniteClicks).toBe(false);
    expect(await clickIsFree(user)).toBe(false);
  });

  it('takes no clock from its caller: a change dated far in the future is refused and pins nothing', async () => {
    const user = await h.registerUser();
    const pinned = await h.app.game.internal.inject({
      method: 'PUT',
      url: internalUserRolePath(user.id),
      headers: { ...internalCallHeaders('auth', 'game'), authorization: `Bearer ${adminToken}` },
      payload: { role: 'admin', roleVersion: 1, changedAt: '2999-01-01T00:00:00.000Z' },
    });
    expect(pinned.statusCode, pinned.body).toBe(400);
    expect(pinned.json().message).toMatch(/changedAt/);
    // A demotion auth makes afterwards reaches the player as usual.
    await h.publish(
      makeEvent(SUBJECTS.userRoleChanged, { userId: user.id, role: 'standard', previousRole: 'admin' }),
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(await clickIsFree(user)).toBe(false);
  });

  it('answers on the internal listener only: the public port does not know the route', async () => {
    const user = await h.registerUser();
    const onPublic = await h.app.inject({
      method: 'PUT',
      url: internalUserRolePath(user.id),
      headers: { ...internalCallHeaders('auth', 'game'), authorization: `Bearer ${adminToken}` },
      payload: { role: 'admin', roleVersion: 1 },
    });
    expect(onPublic.statusCode).toBe(404);
    expect(await clickIsFree(user)).toBe(false);
    const address = h.app.game.internal.server.address();
    expect(typeof address === 'object' && address?.port).toBeGreaterThan(0);
  });

  it('waits briefly for a user whose sign-up event has not arrived yet, then applies the role', async () => {
    const id = randomUUID();
    const username = `late_${id.slice(0, 8)}`;
    const pending = tell(id, 'superuser', 1);
    await new Promise((r) => setTimeout(r, 100));
    await h.publish(
      makeEvent(SUBJECTS.userRegistered, {
        userId: id,
        username,
        email: `${username}@example.com`,
        role: 'standard',
        preferredLanguage: 'es',
      }),
    );
    const answer = await pending;
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json()).toEqual({ role: 'superuser' });
    const token = await h.token({ id, username, role: 'standard' });
    expect(await clickIsFree({ id, username, role: 'standard', token })).toBe(true);
  });

  it('only an admin token may call it, and bad input is a 4xx naming the problem', async () => {
    const user = await h.registerUser();
    const now = 1;
    expect((await tell(user.id, 'admin', now, null)).statusCode).toBe(401);
    expect((await tell(user.id, 'admin', now, 'not-a-token')).statusCode).toBe(401);
    for (const role of ['standard', 'superuser'] as const) {
      const token = await h.token({ id: user.id, username: user.username, role });
      expect((await tell(user.id, 'admin', now, token)).statusCode, role).toBe(403);
    }
    expect((await h.balance(user)).hasInfiniteClicks).toBe(false);
    const badRole = await tell(user.id, 'emperor', now);
    expect(badRole.statusCode).toBe(400);
    expect(badRole.json().message).toEqual(expect.any(String));
    for (const version of ['yesterday', 0, -1, 1.5, '7'])
      expect((await tell(user.id, 'admin', version)).statusCode, String(version)).toBe(400);
    expect((await tell('not-a-uuid', 'admin', now)).statusCode).toBe(400);
    const unknown = await tell(randomUUID(), 'admin', now);
    expect(unknown.statusCode).toBe(409);
    expect(unknown.json().message).toMatch(/does not know this user yet/);
  });
});
