// What the realtime service relies on: game.state.v1 on core NATS after changes (a change after a quiet
// window at once, changes within a window together at its end), and the current state on request
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
  // A long window makes the two edges visible: the first change goes out at once, the next ones wait.
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
        received.push({ at: performance.now(), event: parseEvent(SUBJECTS.gameState, msg.data) }),
    });
    await nc.flush();
  });
  afterAll(async () => {
    await nc?.close();
    await h?.close();
  });

  it('publishes a click after a quiet window at once, and the clicks within the window together at its end', async () => {
    const admin = await h.registerUser('admin', 'admin');
    // A quiet window: nothing published for a whole window (start-up and the new user's events).
    let quietSince = performance.now();
    let seen = received.length;
    while (performance.now() - quietSince < WINDOW_MS + 200) {
      await new Promise((r) => setTimeout(r, 100));
      if (received.length !== seen) {
        seen = received.length;
        quietSince = performance.now();
      }
    }
    received.length = 0;
    const clickedAt = performance.now();
    const [first] = await h.clickTimes(admin, 1);
    const ordinal = first!.json().globalClicks as number;
    await eventually(() => received.some((r) => r.event.data.globalClicks === ordinal), 'the first click');
    const firstSeen = received.find((r) => r.event.data.globalClicks === ordinal)!;
    expect(firstSeen.at - clickedAt).toBeLessThan(WINDOW_MS / 2);
    expect(firstSeen.event.data).toMatchObject({ round: 1, lastClickUser: admin.username, lastWinner: null });

    await h.clickTimes(admin, 30, 10);
    const target = ordinal + 30;
    await eventually(
      () => received.some((r) => r.event.data.globalClicks === target),
      'the window’s clicks',
      WINDOW_MS * 2,
    );
    // Everything after the first click came in one message, at the end of the window.
    expect(received.map((r) => r.event.data.globalClicks)).toEqual([ordinal, target]);
    expect(received[1]!.at - firstSeen.at).toBeGreaterThan(WINDOW_MS / 2);
  });
});
