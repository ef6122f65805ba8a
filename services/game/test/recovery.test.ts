// Redis is the hot state and Postgres the record: when Redis restarts empty mid-round, the game rebuilds
// from Postgres without losing a winner, a purchased click or a cent, and loses at most the accepted
// clicks not yet flushed from the journal (here the flush runs only when the test asks, so the loss is
// exactly the clicks since the last flush).
import { eventually } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roundWonInbox, startGame, type Harness, type TestUser } from './support.js';

const TARGET = 300;

describe('a Redis restart mid-round', () => {
  let h: Harness;
  let clickers: TestUser[];
  let inbox: Awaited<ReturnType<typeof roundWonInbox>>;

  beforeAll(async () => {
    h = await startGame({
      name: 'recovery',
      env: {
        ROUND_TARGET: String(TARGET),
        MILESTONES: '',
        CLICK_RATE_PER_USER: '100000',
        JOURNAL_FLUSH_MS: '600000',
      },
    });
    clickers = await h.registerUsers(5, 'superuser', 'clicker');
    inbox = await roundWonInbox(h);
  });
  afterAll(async () => {
    inbox?.stop();
    await h?.close();
  });

  async function clickMany(total: number) {
    const responses = await Promise.all(
      Array.from({ length: total }, (_, i) => h.click(clickers[i % clickers.length]!)),
    );
    expect(responses.every((r) => r.statusCode === 200)).toBe(true);
    return responses.map((r) => r.json() as { globalClicks: number; won?: boolean });
  }

  it('loses no winner, no purchased click and no cent, and at most the clicks since the last flush', async () => {
    // Round 1 is won; its win reaches Postgres at once, without waiting for the journal.
    expect((await clickMany(TARGET)).filter((r) => r.won)).toHaveLength(1);
    await eventually(
      async () => (await h.app.inject('/api/winners')).json().winners.length === 1,
      'win written',
    );
    const roundOneWinner = (await h.state(clickers[0])).lastWinner;

    // Round 2: a purchase, purchased clicks spent, granted clicks spent.
    const [buyer, player] = await h.registerUsers(2);
    await h.publish(h.purchaseEvent(buyer!, 'clicks500', 100));
    await eventually(async () => (await h.balance(buyer!)).purchasedClicks === 500, 'purchase applied');
    for (let i = 0; i < 5; i++) expect((await h.click(buyer!)).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expect((await h.click(player!)).statusCode).toBe(200);
    await clickMany(92);
    await h.flushJournal();
    const flushed = await h.state(buyer);
    expect(flushed).toMatchObject({ globalClicks: 100, pot: 1 });

    // Accepted but not flushed when Redis dies: these are the clicks the game may lose.
    await clickMany(20);
    for (let i = 0; i < 2; i++) expect((await h.click(player!)).statusCode).toBe(200);
    expect((await h.state()).globalClicks).toBe(122);

    await h.restartRedisEmpty();

    await eventually(
      async () => (await h.app.inject('/api/game/state')).statusCode === 200,
      'game answers again',
    );
    const rebuilt = await h.state(buyer);
    expect(rebuilt).toEqual({
      globalClicks: 100,
      pot: 1,
      lastWinner: roundOneWinner,
      lastClickUser: expect.any(String),
    });
    expect(await h.balance(buyer!)).toEqual({
      freeClicks: 10 + 495,
      purchasedClicks: 495,
      hasInfiniteClicks: false,
    });
    // The two unflushed clicks are lost together with what they spent: no click counted unpaid, none paid uncounted.
    expect(await h.balance(player!)).toEqual({ freeClicks: 7, purchasedClicks: 0, hasInfiniteClicks: false });
    expect((await h.app.inject('/api/winners')).json().winners).toHaveLength(1);

    // The round goes on from there and ends with one winner, whose pot holds the purchase's share.
    const rest = await clickMany(TARGET - 100);
    expect(rest.filter((r) => r.won)).toHaveLength(1);
    expect(rest.find((r) => r.won)!.globalClicks).toBe(TARGET);

    // Redis dies right after that win, before any journal flush: the win is not lost, nor doubled.
    await h.restartRedisEmpty();
    await eventually(
      async () => (await h.app.inject('/api/game/state')).statusCode === 200,
      'game answers again',
    );
    expect(await h.state(buyer)).toMatchObject({ globalClicks: 0, pot: 0 });
    // Purchased clicks of round 2 expired with it; the granted ones remain.
    expect(await h.balance(buyer!)).toEqual({ freeClicks: 10, purchasedClicks: 0, hasInfiniteClicks: false });
    const winners = (await h.app.inject('/api/winners')).json().winners;
    expect(winners.map((w: { round: number; pot: number }) => [w.round, w.pot])).toEqual([
      [2, 1],
      [1, 0],
    ]);
    await h.drainOutbox();
    await eventually(() => inbox.received.length === 2, 'two round won events');
    await new Promise((r) => setTimeout(r, 300));
    expect(inbox.received.map((e) => [e.data.round, e.data.potCents])).toEqual([
      [1, 0],
      [2, 100],
    ]);
  });

  it('re-applies a purchase redelivered after the restart only once', async () => {
    const [buyer] = await h.registerUsers(1);
    // The pot as the test before left it (flushed, so a rebuild keeps it): this purchase adds its share.
    await h.flushJournal();
    const potBefore = Number((await h.state(buyer)).pot);
    const purchase = h.purchaseEvent(buyer!, 'clicks100', 50);
    await h.publish(purchase);
    await eventually(async () => (await h.balance(buyer!)).purchasedClicks === 100, 'purchase applied');
    await h.restartRedisEmpty();
    await h.publish(purchase, `${purchase.id}-again`);
    await eventually(
      async () => (await h.app.inject('/api/game/state')).statusCode === 200,
      'game answers again',
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(await h.balance(buyer!)).toMatchObject({ purchasedClicks: 100 });
    expect((await h.state(buyer)).pot).toBeCloseTo(potBefore + 0.5, 2);
  });
});
