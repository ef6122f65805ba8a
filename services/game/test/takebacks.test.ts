// A refunded purchase's take-back, as payments asks it on the game's internal port with the refunding
// admin's token: the buyer's unspent purchased clicks of that round (at most the pack's, never below
// zero) and the pot share while the round is in play; once per purchase, whatever the number of calls;
// kept through a rebuild of Redis from Postgres.
import { InternalTakeBack, internalTakeBackPath, parseEvent, SUBJECTS } from '@omc/contracts';
import { eventually, testInfra, internalCallHeaders } from '@omc/testkit';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGame, type Harness, type TestUser } from './support.js';

const TARGET = 40;

describe('taking back a refunded purchase', () => {
  let h: Harness;
  let admin: TestUser;
  let nc: NatsConnection;
  /** The pot of every game.state.v1 the realtime service would relay to the sockets. */
  const published: number[] = [];

  beforeAll(async () => {
    nc = await connect({ servers: testInfra().natsUrl });
    nc.subscribe(SUBJECTS.gameState, {
      callback: (_error, msg) => published.push(parseEvent(SUBJECTS.gameState, msg.data).data.potCents),
    });
    await nc.flush();
    h = await startGame({
      name: 'takebacks',
      env: { ROUND_TARGET: String(TARGET), MILESTONES: '', CLICK_RATE_PER_USER: '100000' },
    });
    admin = await h.registerUser('admin', 'operator');
  });
  afterAll(async () => {
    await nc?.close();
    await h?.close();
  });

  const takeBack = (event: ReturnType<Harness['purchaseEvent']>, token = admin.token) =>
    h.app.game.internal.inject({
      method: 'POST',
      url: internalTakeBackPath(event.data.purchaseId),
      headers: { ...internalCallHeaders('payments', 'game'), authorization: `Bearer ${token}` },
      payload: event.data,
    });

  const pot = async () => (await h.state()).pot ?? 0;

  it('takes back the unspent clicks and the pot share once, even when asked in parallel', async () => {
    const buyer = await h.registerUser();
    const potBefore = await pot();
    const event = h.purchaseEvent(buyer, 'clicks100', 50);
    await h.publish(event);
    await eventually(async () => (await h.balance(buyer)).purchasedClicks === 100, 'purchase applied');
    // Purchased clicks are spent first: 3 of the 100 are gone.
    for (let i = 0; i < 3; i++) expect((await h.click(buyer)).statusCode).toBe(200);
    expect(await pot()).toBeCloseTo(potBefore + 0.5);

    // A player is no operator.
    expect((await takeBack(event, buyer.token)).statusCode).toBe(403);

    const answers = await Promise.all(Array.from({ length: 5 }, () => takeBack(event)));
    for (const answer of answers) {
      expect(answer.statusCode).toBe(200);
      expect(InternalTakeBack.parse(answer.json())).toEqual({
        purchaseId: event.data.purchaseId,
        round: 1,
        roundInPlay: true,
        clicks: 97,
        pass: false,
        potCents: 50,
      });
    }
    expect((await h.balance(buyer)).purchasedClicks).toBe(0);
    expect(await pot()).toBeCloseTo(potBefore);
    // The sockets hear of the smaller pot: the state goes out to the realtime service.
    const potCentsNow = Math.round(potBefore * 100);
    await eventually(async () => published.at(-1) === potCentsNow, 'the state published with the pot');
  });

  it('withdraws the round pass of a refunded unlimited pack', async () => {
    const buyer = await h.registerUser();
    const event = h.purchaseEvent(buyer, 'unlimited', 100);
    await h.publish(event);
    await eventually(async () => (await h.balance(buyer)).hasInfiniteClicks, 'pass applied');
    const answer = InternalTakeBack.parse((await takeBack(event)).json());
    expect(answer).toMatchObject({ roundInPlay: true, clicks: 0, pass: true, potCents: 100 });
    expect((await h.balance(buyer)).hasInfiniteClicks).toBe(false);
  });

  it('applies a purchase whose event never arrived, then takes it back: nothing is left of it', async () => {
    const buyer = await h.registerUser();
    const potBefore = await pot();
    const event = h.purchaseEvent(buyer, 'clicks500', 100);
    const answer = InternalTakeBack.parse((await takeBack(event)).json());
    expect(answer).toMatchObject({ roundInPlay: true, clicks: 500, potCents: 100 });
    // The late event changes nothing.
    await h.publish(event);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await h.balance(buyer)).purchasedClicks).toBe(0);
    expect(await pot()).toBeCloseTo(potBefore);
  });

  it('keeps what it took back when Redis is rebuilt from Postgres', async () => {
    const buyer = await h.registerUser();
    const kept = h.purchaseEvent(buyer, 'clicks100', 30);
    const refunded = h.purchaseEvent(buyer, 'clicks500', 70);
    await h.publish(kept);
    await h.publish(refunded);
    await eventually(async () => (await h.balance(buyer)).purchasedClicks === 600, 'purchases applied');
    const potBefore = await pot();
    expect(InternalTakeBack.parse((await takeBack(refunded)).json())).toMatchObject({ clicks: 500 });
    await h.flushJournal();
    await h.restartRedisEmpty();
    await eventually(
      async () => (await h.app.inject('/api/game/state')).statusCode === 200,
      'game answers again',
    );
    expect((await h.balance(buyer)).purchasedClicks).toBe(100);
    expect(await pot()).toBeCloseTo(potBefore - 0.7);
    // Asked again after the rebuild: the same answer, nothing more taken.
    expect(InternalTakeBack.parse((await takeBack(refunded)).json())).toMatchObject({
      clicks: 500,
      potCents: 70,
    });
    expect((await h.balance(buyer)).purchasedClicks).toBe(100);
  });

  it('after the round was won takes nothing: its clicks expired and its pot went to the winner', async () => {
    const buyer = await h.registerUser();
    const event = h.purchaseEvent(buyer, 'clicks100', 50);
    await h.publish(event);
    await eventually(async () => (await h.balance(buyer)).purchasedClicks === 100, 'purchase applied');
    const round = (await h.app.game.engine.readState()).round;
    // The admin clicks without spending until the round is won.
    const remaining = TARGET - (await h.state()).globalClicks;
    await h.clickTimes(admin, remaining, 10);
    await eventually(async () => (await h.app.game.engine.readState()).round === round + 1, 'round won');
    const potOfNewRound = await pot();

    const answer = InternalTakeBack.parse((await takeBack(event)).json());
    expect(answer).toEqual({
      purchaseId: event.data.purchaseId,
      round,
      roundInPlay: false,
      clicks: 0,
      pass: false,
      potCents: 0,
    });
    expect(await pot()).toBe(potOfNewRound);
  });

  it('refuses a body that names another purchase than the path', async () => {
    const buyer = await h.registerUser();
    const event = h.purchaseEvent(buyer, 'clicks100', 50);
    const other = h.purchaseEvent(buyer, 'clicks100', 50);
    const answer = await h.app.game.internal.inject({
      method: 'POST',
      url: internalTakeBackPath(other.data.purchaseId),
      headers: { ...internalCallHeaders('payments', 'game'), authorization: `Bearer ${admin.token}` },
      payload: event.data,
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().message).toMatch(/purchaseId/);
  });
});
