// Clicks against real Redis, Postgres and NATS: balances, privileges, milestones, concurrency, limits.
import { UNLIMITED_CLICKS } from '@omc/contracts';
import { eventually } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGame, type Harness, type TestUser } from './support.js';

describe('clicking', () => {
  let h: Harness;
  let admin: TestUser;

  beforeAll(async () => {
    h = await startGame({
      name: 'clicks',
      env: {
        ROUND_TARGET: '100000',
        MILESTONES: '10:100,50:500',
        SIGNUP_FREE_CLICKS: '10',
        CLICK_RATE_PER_USER: '20',
      },
    });
    admin = await h.registerUser('admin', 'admin');
  });
  afterAll(async () => h?.close());

  it('refuses a guest with 401 and a user the game does not know yet with a clear 4xx', async () => {
    const guest = await h.app.inject({ method: 'POST', url: '/api/game/click' });
    expect(guest.statusCode).toBe(401);
    expect(guest.json().message).toBe('Authentication required');
    const stranger = { id: crypto.randomUUID(), username: 'stranger', role: 'standard' as const, token: '' };
    stranger.token = await h.token(stranger);
    const unknown = await h.click(stranger);
    expect(unknown.statusCode).toBe(409);
    expect(unknown.json().message).toMatch(/not known to the game yet/);
    expect((await h.profile(stranger)).statusCode).toBe(404);
  });

  it('gives the 10th and the 50th click of the round their rewards', async () => {
    const [tenth, fiftieth] = await h.registerUsers(2);
    const start = (await h.state()).globalClicks;
    expect(start).toBe(0);
    for (let i = 1; i <= 9; i++) expect((await h.click(admin)).json().globalClicks).toBe(i);
    const ten = await h.click(tenth!);
    expect(ten.statusCode).toBe(200);
    expect(ten.json()).toMatchObject({
      globalClicks: 10,
      freeClicks: 10 - 1 + 100,
      milestone: { at: 10, freeClicks: 100 },
    });
    for (let i = 11; i <= 49; i++) {
      const r = await h.click(admin);
      expect(r.json().globalClicks).toBe(i);
      if (i % 15 === 0) await new Promise((resolve) => setTimeout(resolve, 1000)); // stay under the admin's rate limit
    }
    const fifty = await h.click(fiftieth!);
    expect(fifty.json()).toMatchObject({
      globalClicks: 50,
      freeClicks: 10 - 1 + 500,
      milestone: { at: 50, freeClicks: 500 },
    });
    expect(await h.balance(tenth!)).toEqual({
      freeClicks: 109,
      purchasedClicks: 0,
      hasInfiniteClicks: false,
    });
    expect(await h.balance(fiftieth!)).toEqual({
      freeClicks: 509,
      purchasedClicks: 0,
      hasInfiniteClicks: false,
    });
    // The admin made the other clicks and earned nothing, and spent nothing.
    expect(await h.balance(admin)).toEqual({
      freeClicks: UNLIMITED_CLICKS,
      purchasedClicks: 0,
      hasInfiniteClicks: true,
    });
  });

  it('accepts exactly 500 of 1,000 concurrent clicks by 50 users holding 10 clicks each', async () => {
    const users = await h.registerUsers(50);
    const before = (await h.state()).globalClicks;
    const requests = users.flatMap((user) => Array.from({ length: 20 }, () => h.click(user)));
    const responses = await Promise.all(requests);
    const accepted = responses.filter((r) => r.statusCode === 200);
    const refused = responses.filter((r) => r.statusCode === 403);
    expect(accepted).toHaveLength(500);
    expect(refused).toHaveLength(500);
    expect(refused[0]!.json().message).toMatch(/No clicks left/);
    // Each accepted click has its own ordinal, and together they fill the counter's range exactly.
    const ordinals = accepted.map((r) => r.json().globalClicks as number).sort((a, b) => a - b);
    expect(ordinals).toEqual(Array.from({ length: 500 }, (_, i) => before + 1 + i));
    expect(accepted.every((r) => r.json().freeClicks >= 0)).toBe(true);
    expect((await h.state()).globalClicks).toBe(before + 500);
    for (const user of users)
      expect(await h.balance(user)).toEqual({ freeClicks: 0, purchasedClicks: 0, hasInfiniteClicks: false });
    // What Postgres holds agrees once the journal is flushed.
    await h.flushJournal();
    const { db } = await import('./db-peek.js').then((m) => m.peek(h));
    const rows = await db
      .selectFrom('users')
      .select(['granted_clicks'])
      .where(
        'id',
        'in',
        users.map((u) => u.id),
      )
      .execute();
    expect(rows.map((r) => Number(r.granted_clicks))).toEqual(Array(50).fill(0));
    const round = await db
      .selectFrom('rounds')
      .select('clicks')
      .where('round', '=', 1)
      .executeTakeFirstOrThrow();
    expect(Number(round.clicks)).toBe(before + 500);
    await db.destroy();
  });

  it('lets admin and superuser click without spending', async () => {
    const superuser = await h.registerUser('superuser', 'super');
    expect(await h.balance(superuser)).toEqual({
      freeClicks: UNLIMITED_CLICKS,
      purchasedClicks: 0,
      hasInfiniteClicks: true,
    });
    for (const user of [admin, superuser]) {
      const responses = await Promise.all(Array.from({ length: 5 }, () => h.click(user)));
      expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
      expect(responses.every((r) => r.json().freeClicks === UNLIMITED_CLICKS)).toBe(true);
    }
    expect(await h.balance(superuser)).toMatchObject({
      freeClicks: UNLIMITED_CLICKS,
      hasInfiniteClicks: true,
    });
  });

  it('applies a role change to the very next click, whatever the token says', async () => {
    const user = await h.registerUser();
    await Promise.all(Array.from({ length: 10 }, () => h.click(user)));
    expect((await h.click(user)).statusCode).toBe(403);
    await h.changeRole(user, 'superuser');
    await eventually(async () => (await h.balance(user)).hasInfiniteClicks, 'role change reached the game');
    // Same token, still saying "standard".
    const free = await h.click(user);
    expect(free.statusCode).toBe(200);
    expect(free.json().freeClicks).toBe(UNLIMITED_CLICKS);
    await h.changeRole({ ...user, role: 'superuser' }, 'standard');
    await eventually(async () => !(await h.balance(user)).hasInfiniteClicks, 'demotion reached the game');
    expect((await h.click(user)).statusCode).toBe(403);
  });

  it('keeps the newer role when an older role change arrives late', async () => {
    const { makeEvent, SUBJECTS } = await import('@omc/contracts');
    const user = await h.registerUser();
    const newer = makeEvent(SUBJECTS.userRoleChanged, {
      userId: user.id,
      role: 'superuser',
      previousRole: 'admin',
    });
    const older = {
      ...makeEvent(SUBJECTS.userRoleChanged, { userId: user.id, role: 'admin', previousRole: 'standard' }),
      occurredAt: new Date(Date.now() - 60_000).toISOString(),
    };
    await h.publish(newer);
    await eventually(async () => (await h.balance(user)).hasInfiniteClicks, 'newer role applied');
    await h.publish(older);
    const { db } = await import('./db-peek.js').then((m) => m.peek(h));
    await eventually(
      async () =>
        db.selectFrom('processed_events').select('id').where('id', '=', older.id).executeTakeFirst(),
      'older event handled',
    );
    const row = await db
      .selectFrom('users')
      .select('role')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.role).toBe('superuser');
    expect(await h.balance(user)).toMatchObject({ hasInfiniteClicks: true });
    await db.destroy();
  });

  it('answers 429 with a clear message when one user clicks too fast', async () => {
    const fast = await h.registerUser('superuser', 'fast');
    const responses = await Promise.all(Array.from({ length: 60 }, () => h.click(fast)));
    const limited = responses.filter((r) => r.statusCode === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(responses.filter((r) => r.statusCode === 200).length).toBeLessThanOrEqual(25);
    expect(limited[0]!.json().message).toBe('Too many clicks: at most 20 per second');
    // The limit is per second: the refusal says when to come back, as an overload refusal does.
    expect(limited[0]!.headers['retry-after']).toBe('1');
  });

  it('shows the whole state to everyone, guests included: the interface hides what a guest may not see', async () => {
    const player = await h.registerUser('standard', 'shown');
    const click = await h.click(player);
    const whole = {
      globalClicks: click.json().globalClicks,
      pot: 0,
      lastWinner: null,
      lastClickUser: player.username,
    };
    expect(await h.state(player)).toEqual(whole);
    expect(await h.state()).toEqual(whole);
  });

  it('renames the last clicker when auth renames the user', async () => {
    const player = await h.registerUser('standard', 'before');
    await h.click(player);
    const { makeEvent, SUBJECTS } = await import('@omc/contracts');
    await h.publish(makeEvent(SUBJECTS.userRenamed, { userId: player.id, username: 'after_rename' }));
    await eventually(async () => (await h.state(player)).lastClickUser === 'after_rename', 'rename shown');
  });

  it('serves the rules: target, milestones with the final one, and the packs', async () => {
    const response = await h.app.inject('/api/game/rules');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      roundTarget: 100000,
      milestones: [
        { at: 10, freeClicks: 100 },
        { at: 50, freeClicks: 500 },
        { at: 100000, winsPot: true },
      ],
      packs: [
        { id: 'clicks100', clicks: 100, price: 0.99, currency: 'EUR' },
        { id: 'clicks500', clicks: 500, price: 1.99, currency: 'EUR' },
        { id: 'clicks1000', clicks: 1000, price: 4.99, currency: 'EUR' },
        { id: 'unlimited', unlimited: true, price: 9.99, currency: 'EUR' },
      ],
    });
  });

  it('exposes Prometheus metrics, and the accepted-click counter rises with clicks', async () => {
    const accepted = async () => {
      const response = await h.app.inject('/metrics');
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/text\/plain/);
      const line = response.body
        .split('\n')
        .find((l) => l.startsWith('game_clicks_total{') && l.includes('outcome="accepted"'));
      return Number(line?.split(' ').pop() ?? 0);
    };
    const before = await accepted();
    const player = await h.registerUser();
    await Promise.all(Array.from({ length: 3 }, () => h.click(player)));
    expect(await accepted()).toBe(before + 3);
    const body = (await h.app.inject('/metrics')).body;
    for (const name of [
      'game_click_batch_size_bucket',
      'game_events_consumed_total',
      'game_outbox_backlog',
      'game_rounds_won_total',
      'game_state_published_total',
    ]) {
      expect(body).toContain(name);
    }
  });
});
