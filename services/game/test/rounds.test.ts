// Rounds: exactly one winner at exactly the target under thousands of concurrent clicks, the round-won
// event received once by a real JetStream consumer, purchases, the pass, expiry, winners list.
import { makeEvent, SUBJECTS, UNLIMITED_CLICKS } from '@omc/contracts';
import { eventually } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roundWonInbox, startGame, type Harness, type TestUser } from './support.js';

const TARGET = 1500;

describe('rounds', () => {
  let h: Harness;
  let clickers: TestUser[];
  let inbox: Awaited<ReturnType<typeof roundWonInbox>>;

  beforeAll(async () => {
    h = await startGame({
      name: 'rounds',
      env: { ROUND_TARGET: String(TARGET), MILESTONES: '10:100,50:500', CLICK_RATE_PER_USER: '100000' },
    });
    clickers = await h.registerUsers(10, 'superuser', 'clicker');
    inbox = await roundWonInbox(h);
  });
  afterAll(async () => {
    inbox?.stop();
    await h?.close();
  });

  /** Concurrent clicks spread over the clickers, `parallel` in flight at a time. */
  async function storm(total: number, parallel = 400) {
    const responses = [];
    for (let sent = 0; sent < total; sent += parallel) {
      const n = Math.min(parallel, total - sent);
      responses.push(
        ...(await Promise.all(
          Array.from({ length: n }, (_, i) => h.click(clickers[(sent + i) % clickers.length]!)),
        )),
      );
    }
    return responses.map((r) => {
      expect(r.statusCode).toBe(200);
      return r.json() as { globalClicks: number; round: number; won?: boolean };
    });
  }

  it('pots the purchases, counts a purchase delivered twice once, and sells a pass that makes clicks free', async () => {
    const [buyer, passHolder] = await h.registerUsers(2);
    const clicks100 = h.purchaseEvent(buyer!, 'clicks100', 50);
    await h.publish(clicks100);
    // The same event again, as a redelivery would bring it (another message id, so JetStream keeps it).
    await h.publish(clicks100, `${clicks100.id}-redelivered`);
    const pass = h.purchaseEvent(passHolder!, 'unlimited', 500);
    await h.publish(pass);
    await eventually(async () => (await h.balance(passHolder!)).hasInfiniteClicks, 'pass applied');
    await eventually(async () => (await h.balance(buyer!)).purchasedClicks === 100, 'clicks applied');
    await h.flushJournal();
    await new Promise((r) => setTimeout(r, 300));
    expect(await h.balance(buyer!)).toEqual({
      freeClicks: 110,
      purchasedClicks: 100,
      hasInfiniteClicks: false,
    });
    expect((await h.state(buyer!)).pot).toBe(5.5);
    // Purchased clicks are spent first; the click's answer carries the whole balance the screen shows,
    // so the web app needs no profile read after a click.
    expect((await h.click(buyer!)).json()).toMatchObject({
      freeClicks: 109,
      purchasedClicks: 99,
      hasInfiniteClicks: false,
    });
    expect(await h.balance(buyer!)).toMatchObject({ purchasedClicks: 99 });
    const free = await Promise.all(Array.from({ length: 15 }, () => h.click(passHolder!)));
    expect(free.every((r) => r.statusCode === 200 && r.json().freeClicks === UNLIMITED_CLICKS)).toBe(true);
    expect(free[0]!.json()).toMatchObject({ purchasedClicks: 0, hasInfiniteClicks: true });
    expect(await h.balance(passHolder!)).toEqual({
      freeClicks: UNLIMITED_CLICKS,
      purchasedClicks: 0,
      hasInfiniteClicks: true,
    });
  });

  it('closes the round under thousands of concurrent clicks with exactly one winner at exactly the target', async () => {
    const before = await h.state(clickers[0]);
    const remaining = TARGET - before.globalClicks;
    const results = await storm(remaining + 500);
    const winners = results.filter((r) => r.won);
    expect(winners).toHaveLength(1);
    expect(winners[0]).toMatchObject({ globalClicks: TARGET, round: 1 });
    // Every ordinal of the round was given exactly once, and the next round started from 1.
    const round1 = results
      .filter((r) => r.round === 1)
      .map((r) => r.globalClicks)
      .sort((a, b) => a - b);
    expect(round1).toEqual(Array.from({ length: remaining }, (_, i) => before.globalClicks + 1 + i));
    const round2 = results
      .filter((r) => r.round === 2)
      .map((r) => r.globalClicks)
      .sort((a, b) => a - b);
    expect(round2).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    const after = await h.state(clickers[0]);
    expect(after.globalClicks).toBe(500);
    expect(after.pot).toBe(0);
    expect(after.lastWinner).toMatch(/^clicker_/);

    await h.drainOutbox();
    await eventually(() => inbox.received.length >= 1, 'round won event');
    await new Promise((r) => setTimeout(r, 300));
    expect(inbox.received).toHaveLength(1);
    expect(inbox.received[0]!.data).toMatchObject({
      round: 1,
      clicks: TARGET,
      potCents: 550,
      winnerUsername: after.lastWinner,
    });

    const list = (await h.app.inject('/api/winners')).json();
    expect(list.winners).toHaveLength(1);
    expect(list.winners[0]).toMatchObject({ userId: { username: after.lastWinner }, pot: 5.5, round: 1 });
    expect(typeof list.winners[0]._id).toBe('string');
    expect(new Date(list.winners[0].createdAt).toISOString()).toBe(list.winners[0].createdAt);
  });

  it('lets purchased clicks and the pass expire with the round', async () => {
    const [buyer, passHolder] = await h.registerUsers(2);
    await h.publish(h.purchaseEvent(buyer!, 'clicks500', 100));
    await h.publish(h.purchaseEvent(passHolder!, 'unlimited', 500));
    await eventually(
      async () =>
        (await h.balance(passHolder!)).hasInfiniteClicks && (await h.balance(buyer!)).purchasedClicks === 500,
      'purchases applied',
    );
    expect((await h.state(buyer!)).pot).toBe(6);
    const start = (await h.state()).globalClicks;
    const results = await storm(TARGET - start);
    expect(results.filter((r) => r.won)).toHaveLength(1);
    expect(await h.balance(buyer!)).toEqual({ freeClicks: 10, purchasedClicks: 0, hasInfiniteClicks: false });
    expect(await h.balance(passHolder!)).toEqual({
      freeClicks: 10,
      purchasedClicks: 0,
      hasInfiniteClicks: false,
    });
    // The first click of the new round is paid from the granted balance again.
    const paid = await h.click(passHolder!);
    expect(paid.json()).toMatchObject({ globalClicks: 1, round: 3, freeClicks: 9 });
    await h.drainOutbox();
    await eventually(() => inbox.received.length === 2, 'second round won event');
    expect(inbox.received[1]!.data).toMatchObject({ round: 2, clicks: TARGET, potCents: 600 });
  });

  it('lists winners newest first, page by page, and shows a deleted winner as userId null', async () => {
    await storm(TARGET - (await h.state()).globalClicks);
    await eventually(
      async () => (await h.app.inject('/api/winners')).json().winners.length === 3,
      'third win written',
    );
    const first = (await h.app.inject('/api/winners?limit=2')).json();
    expect(first.winners.map((w: { round: number }) => w.round)).toEqual([3, 2]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = (await h.app.inject(`/api/winners?limit=2&cursor=${first.nextCursor}`)).json();
    expect(second.winners.map((w: { round: number }) => w.round)).toEqual([1]);
    expect(second.nextCursor).toBeNull();
    expect((await h.app.inject('/api/winners?cursor=nonsense')).statusCode).toBe(400);
    expect((await h.app.inject('/api/winners?limit=0')).statusCode).toBe(400);

    const roundOneWinner = clickers.find((c) => c.username === second.winners[0].userId.username)!;
    await h.publish(makeEvent(SUBJECTS.userDeleted, { userId: roundOneWinner.id }));
    await eventually(
      async () =>
        (await h.app.inject('/api/winners')).json().winners.find((w: { round: number }) => w.round === 1)
          .userId === null,
      'deleted winner anonymous',
    );
    // The deletion reaches Redis just after Postgres (the winners list above): wait for that step too.
    await eventually(
      async () => (await h.click(roundOneWinner)).statusCode === 401,
      'the deleted winner refused',
    );
  });
});
