// What the realtime service relies on: game.state.v1 on core NATS after changes (coalesced), and the
// current state on request (game.state.current.v1).
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
