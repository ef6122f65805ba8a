// Redis that comes back older than Postgres (a restored copy, a failover to a replica that lagged, a node
// that lost its last writes) is found behind and rebuilt from Postgres: no click, purchase or win that
// Postgres recorded is lost, and no won round is played again.
import { eventually } from '@omc/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { copyRedis } from './redis-copy.js';
import { startGame, type Harness } from './support.js';

describe('a Redis rolled back to an older copy', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** One click, flushed; a copy; then 3 more clicks and a 100-click pack, all recorded in Postgres. */
  async function playPastACopy(harness: Harness) {
    const buyer = await harness.registerUser();
    expect((await harness.click(buyer)).statusCode).toBe(200);
    await harness.flushJournal();
    const copy = await copyRedis(harness.redisUrl());
    for (let i = 0; i < 3; i++) expect((await harness.click(buyer)).statusCode).toBe(200);
    await harness.publish(harness.purchaseEvent(buyer, 'clicks100', 50));
    await eventually(async () => (await harness.balance(buyer)).purchasedClicks === 100, 'purchase applied');
    await harness.flushJournal();
    // 10 sign-up clicks - 4 spent + 100 bought.
    expect(await harness.balance(buyer)).toEqual({
      freeClicks: 106,
      purchasedClicks: 100,
      hasInfiniteClicks: false,
    });
    expect(await harness.state(buyer)).toMatchObject({ globalClicks: 4, pot: 0.5 });
    return { buyer, copy };
  }

  it('is noticed by the periodic check and rebuilt with every recorded click and purchase', async () => {
    h = await startGame({ name: 'fence-check', env: { FENCE_CHECK_MS: '50', JOURNAL_FLUSH_MS: '600000' } });
    const { buyer, copy } = await playPastACopy(h);

    await copy.restore();

    await eventually(
      async () => (await h!.balance(buyer)).freeClicks === 106,
      'the purchased clicks are back',
      10_000,
    );
    expect(await h.balance(buyer)).toEqual({
      freeClicks: 106,
      purchasedClicks: 100,
      hasInfiniteClicks: false,
    });
    expect(await h.state(buyer)).toMatchObject({ globalClicks: 4, pot: 0.5 });
    // And the game goes on from there.
    expect((await h.click(buyer)).json()).toMatchObject({ globalClicks: 5, freeClicks: 105 });
  });

  it('is noticed by the journal flusher when new clicks already passed the recorded position', async () => {
    // No periodic check: only the flusher can tell that the entries under the recorded numbers differ.
    h = await startGame({
      name: 'fence-flush',
      env: { FENCE_CHECK_MS: '600000', JOURNAL_FLUSH_MS: '600000' },
    });
    const { buyer, copy } = await playPastACopy(h);

    await copy.restore();
    // On the old copy: 1 click recorded there, 10 - 1 clicks left; these 5 take its journal past the
    // position Postgres recorded, under numbers Postgres already applied other entries with.
    for (let i = 0; i < 5; i++) expect((await h.click(buyer)).statusCode).toBe(200);
    await h.flushJournal();

    await eventually(
      async () => (await h!.state(buyer)).globalClicks === 4,
      'the counter is back at what Postgres recorded',
      10_000,
    );
    // The clicks played on the old copy are not recorded, and neither is what they spent.
    expect(await h.balance(buyer)).toEqual({
      freeClicks: 106,
      purchasedClicks: 100,
      hasInfiniteClicks: false,
    });
    expect(await h.state(buyer)).toMatchObject({ globalClicks: 4, pot: 0.5 });
  });

  it('does not reopen a round that Postgres has a winner for', async () => {
    h = await startGame({
      name: 'fence-win',
      env: { ROUND_TARGET: '20', MILESTONES: '', FENCE_CHECK_MS: '50', JOURNAL_FLUSH_MS: '600000' },
    });
    const [player, winner] = await h.registerUsers(2, 'superuser');
    for (let i = 0; i < 15; i++) expect((await h.click(player!)).statusCode).toBe(200);
    await h.flushJournal();
    const copy = await copyRedis(h.redisUrl());
    const last = [];
    for (let i = 0; i < 5; i++) last.push((await h.click(winner!)).json());
    expect(last.at(-1)).toMatchObject({ globalClicks: 20, won: true });
    await eventually(
      async () => (await h!.app.inject('/api/winners')).json().winners.length === 1,
      'win recorded',
    );

    await copy.restore();

    await eventually(
      async () => (await h!.state()).lastWinner === winner!.username,
      'the won round stays won',
      10_000,
    );
    expect(await h.state()).toMatchObject({ globalClicks: 0, lastWinner: winner!.username });
    // Round 2 is played; round 1 is not won a second time.
    const round2 = [];
    for (let i = 0; i < 20; i++) round2.push((await h.click(player!)).json());
    expect(round2.at(-1)).toMatchObject({ globalClicks: 20, won: true });
    const winners = async () =>
      ((await h!.app.inject('/api/winners')).json().winners as { userId: { username: string } }[]).map(
        (w) => w.userId.username,
      );
    await eventually(async () => (await winners()).length === 2, 'round 2 recorded');
    expect(await winners()).toEqual([player!.username, winner!.username]);
  });
});
