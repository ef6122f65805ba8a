// The consumers' ack wait is a setting: an event given to a replica that dies unacknowledged goes to
// another after EVENT_ACK_WAIT_MS, as JetStream holds it on the durable consumer.
import { STREAMS } from '@omc/contracts';
import { eventually } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGame, type Harness } from './support.js';

describe("the consumers' ack wait", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGame({ name: 'ack-wait', env: { EVENT_ACK_WAIT_MS: '4000' } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is the one configured on every durable consumer of the game', async () => {
    for (const [stream, durable] of [
      [STREAMS.auth.name, 'game-auth'],
      [STREAMS.payments.name, 'game-payments'],
    ] as const) {
      const info = await eventually(
        () => h.nats.jsm.consumers.info(stream, durable).catch(() => undefined),
        `${durable} created`,
      );
      expect(info!.config.ack_wait).toBe(4000 * 1_000_000);
    }
  });
});
