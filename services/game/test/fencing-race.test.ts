// Win writes and rebuilds are ordered with any number of game instances: a win decided by a Redis state
// that was lost and rebuilt meanwhile, written late by another instance (its write waiting for a
// Postgres connection), never commits after the rebuild reopened its round.
import { eventually } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGame, type Harness } from './support.js';

const TARGET = 50;

describe('a late win write from another instance and a rebuild', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startGame({
      name: 'fence-race',
      instances: 3,
      env: {
        ROUND_TARGET: String(TARGET),
        MILESTONES: '',
        CLICK_RATE_PER_USER: '100000',
        JOURNAL_FLUSH_MS: '600000',
        FENCE_CHECK_MS: '600000',
        // The closing click waits for its win's write for as long as this test holds the pool.
        WIN_CONFIRM_TIMEOUT_MS: '60000',
      },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Holds every connection of one instance's Postgres pool until released. */
  async function holdPool(app: (typeof h.apps)[number], size = 20) {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    const holders = Array.from({ length: size }, () =>
      app.game.deps.db.connection().execute(async () => {
        held++;
        await gate;
      }),
    );
    await eventually(() => held === size, 'every connection held');
    return async () => {
      release();
      await Promise.all(holders);
    };
  }

  /** Rounds this instance closed in Redis (its /metrics). */
  async function roundsWon(app: (typeof h.apps)[number]): Promise<number> {
    const body = (await app.inject('/metrics')).body;
    return Number(/^game_rounds_won_total(?:\{[^}]*\})? (\d+)$/m.exec(body)?.[1] ?? 0);
  }

  it('records the round won once, by the winner of the round as it was played again', async () => {
    const [first, late, replay] = [h.apps[0]!, h.apps[1]!, h.apps[2]!];
    const [early, lateWinner, replayWinner] = await h.registerUsers(3, 'superuser');
    for (let i = 0; i < 30; i++) expect((await h.click(early!, first)).statusCode).toBe(200);
    await h.flushJournal(first);

    // The second instance closes the round; its win write waits for a Postgres connection, and the
    // closing click waits for its win's write.
    const releasePool = await holdPool(late);
    for (let i = 0; i < 19; i++)
      expect((await h.click(lateWinner!, late)).json()).toMatchObject({ globalClicks: 31 + i });
    const closingClick = h.click(lateWinner!, late);
    await eventually(async () => (await roundsWon(late)) === 1, 'the round closed in Redis');

    // Redis loses everything; the third instance rebuilds from Postgres: round 1 at 30 clicks.
    // Until the rebuild is done a state read may be answered with the last state this instance saw (a
    // Redis slower than STALE_READ_MS): the rebuilt state is waited for, and a wrong one never comes.
    await h.restartRedisEmpty();
    await eventually(
      async () => (await h.state(undefined, replay).catch(() => undefined))?.globalClicks === 30,
      'rebuilt from Postgres: round 1 at 30 clicks',
    );

    // Now the late write goes through; the round it closed was reopened by the rebuild, so the write is
    // refused and the closing click is not told it won: its click was not recorded, it tries again.
    await releasePool();
    await late.game.engine.winsSettled();
    const closingAnswer = await closingClick;
    expect(closingAnswer.json()).not.toMatchObject({ won: true });
    expect(closingAnswer.statusCode).toBe(503);
    expect(closingAnswer.headers['retry-after']).toBe('1');
    expect(closingAnswer.json().message).toMatch(/not counted/);

    const replayed = [];
    for (let i = 0; i < 20; i++) replayed.push((await h.click(replayWinner!, replay)).json());
    expect(replayed.at(-1)).toMatchObject({ globalClicks: TARGET, won: true });
    await replay.game.engine.winsSettled();
    await eventually(
      async () => (await replay.inject('/api/winners')).json().winners.length > 0,
      'a winner recorded',
    );
    // One winner for round 1: the one who was told so when it was played to its end.
    const winners = (await replay.inject('/api/winners')).json().winners as {
      userId: { username: string };
    }[];
    expect(winners.map((w) => w.userId.username)).toEqual([replayWinner!.username]);
    // Nobody was told `won: true` but the one recorded.
    expect(winners.map((w) => w.userId.username)).not.toContain(lateWinner!.username);
    expect(await h.state(undefined, replay)).toMatchObject({
      globalClicks: 0,
      lastWinner: replayWinner!.username,
    });
  });
});

describe('a winning click whose win write takes longer than its bound', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startGame({
      name: 'win-confirm',
      env: {
        ROUND_TARGET: '10',
        MILESTONES: '',
        CLICK_RATE_PER_USER: '100000',
        WIN_CONFIRM_TIMEOUT_MS: '300',
      },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers an accepted click without `won`; the win is recorded once Postgres takes it', async () => {
    const [player] = await h.registerUsers(1, 'superuser');
    for (let i = 0; i < 9; i++) expect((await h.click(player!)).statusCode).toBe(200);

    // Postgres is slow to take the win: every connection of the pool is held.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    const holders = Array.from({ length: 20 }, () =>
      h.app.game.deps.db.connection().execute(async () => {
        held++;
        await gate;
      }),
    );
    await eventually(() => held === 20, 'every connection held');

    let closing;
    try {
      closing = await h.click(player!);
    } finally {
      release();
      await Promise.all(holders);
    }
    expect(closing.statusCode).toBe(200);
    expect(closing.json()).toMatchObject({ globalClicks: 10, round: 1 });
    expect(closing.json()).not.toHaveProperty('won');

    await h.app.game.engine.winsSettled();
    const winners = (await h.app.inject('/api/winners')).json().winners as { userId: { username: string } }[];
    expect(winners.map((w) => w.userId.username)).toEqual([player!.username]);
  });
});
