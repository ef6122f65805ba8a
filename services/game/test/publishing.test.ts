// What the realtime service relies on: game.state.v1 on core NATS after changes (at the wall clock's
// multiples of the window, every change since together), and the current state on request
// (game.state.current.v1).
import { parseEvent, SUBJECTS, type EventEnvelope } from '@omc/contracts';
import { connect, type NatsConnection } from 'nats';
import { testInfra, eventually } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGame, type Harness } from './support.js';

describe('state publishing', () => {
  let h: Harness;
  let nc: NatsConnection;
  const received: EventEnvelope<typeof SUBJECTS.gameState>[] = [];

  beforeAll(async () => {
    h = await startGame({ name: 'publishing', env: { ROUND_TARGET: '1000', CLICK_RATE_PER_USER: '1000' } });
    nc = await connect({ servers: testInfra().natsUrl });
    nc.subscribe(SUBJECTS.gameState, {
      callback: (_error, msg) => received.push(parseEvent(SUBJECTS.gameState, msg.data)),
    });
    await nc.flush();
  });
  afterAll(async () => {
    await nc?.close();
    await h?.close();
  });

  it('publishes the whole state after clicks, far fewer messages than clicks', async () => {
    const admin = await h.registerUser('admin', 'admin');
    received.length = 0;
    const responses = await h.clickTimes(admin, 200, 50);
    expect(responses.every((r) => r.statusCode === 200)).toBe(true);
    await eventually(() => received.some((e) => e.data.globalClicks === 200), 'state with 200 clicks');
    const last = received[received.length - 1]!;
    expect(last.data).toMatchObject({
      round: 1,
      globalClicks: 200,
      potCents: 0,
      lastClickUser: admin.username,
      lastWinner: null,
    });
    expect(received.length).toBeLessThan(200);
  });

  it('answers a state request with the current state', async () => {
    const reply = await nc.request(SUBJECTS.gameStateRequest, new Uint8Array(), { timeout: 2000 });
    const event = parseEvent(SUBJECTS.gameState, reply.data);
    expect(event.data).toMatchObject({ round: 1, globalClicks: 200, potCents: 0 });
  });
});

describe('state publishing window', () => {
  // A long window makes the grid visible: nothing goes out before the multiple after a change.
  const WINDOW_MS = 3000;
  let h: Harness;
  let nc: NatsConnection;
  const received: { at: number; event: EventEnvelope<typeof SUBJECTS.gameState> }[] = [];

  beforeAll(async () => {
    h = await startGame({
      name: 'publishing-window',
      env: { ROUND_TARGET: '1000', CLICK_RATE_PER_USER: '1000', STATE_PUBLISH_MS: String(WINDOW_MS) },
    });
    nc = await connect({ servers: testInfra().natsUrl });
    nc.subscribe(SUBJECTS.gameState, {
      callback: (_error, msg) =>
        received.push({ at: Date.now(), event: parseEvent(SUBJECTS.gameState, msg.data) }),
    });
    await nc.flush();
  });
  afterAll(async () => {
    await nc?.close();
    await h?.close();
  });

  it('publishes the changes within a window together, at the multiple of the window after them', async () => {
    const admin = await h.registerUser('admin', 'admin');
    const [first] = await h.clickTimes(admin, 1);
    const ordinal = first!.json().globalClicks as number;
    await eventually(
      () => received.some((r) => r.event.data.globalClicks === ordinal),
      'the first click',
      WINDOW_MS * 2,
    );
    received.length = 0;
    const clickedFrom = Date.now();
    await h.clickTimes(admin, 30, 10);
    const clickedTo = Date.now();
    const target = ordinal + 30;
    await eventually(
      () => received.some((r) => r.event.data.globalClicks === target),
      'the window’s clicks',
      WINDOW_MS * 3,
    );
    // Each publication is for a multiple after the clicks it carries, never before, and at most one
    // goes out for each multiple the clicks reached.
    const firstMultiple = (Math.floor(clickedFrom / WINDOW_MS) + 1) * WINDOW_MS;
    const multiplesReached = Math.floor(clickedTo / WINDOW_MS) - Math.floor(clickedFrom / WINDOW_MS) + 1;
    expect(received.length).toBeLessThanOrEqual(multiplesReached);
    for (const r of received) expect(r.event.data.at).toBeGreaterThanOrEqual(firstMultiple);
    expect(received.at(-1)!.event.data).toMatchObject({
      round: 1,
      globalClicks: target,
      lastClickUser: admin.username,
    });
  });
});
