// A poison event is not retried forever: a durable consumer (service-kit's startConsumer, as every
// service uses it) gives up after its delivery limit, moves the event to the DEAD_LETTERS stream with
// where it came from and why, counts it on /metrics, and goes on with the events after it.
import { randomUUID } from 'node:crypto';
import { makeEvent, STREAMS, SUBJECTS, type EventEnvelope } from '@omc/contracts';
import {
  connectNats,
  createMetrics,
  ensureStream,
  observeConsumerLag,
  publishEvent,
  startConsumer,
  type Consumer,
  type Nats,
} from '@omc/service-kit';
import { eventually, testInfra } from '@omc/testkit';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let nats: Nats;
let consumer: Consumer | undefined;
beforeAll(async () => {
  nats = await connectNats(testInfra().natsUrl, 'dead-letters-test');
  await ensureStream(nats.jsm, STREAMS.game);
});
afterAll(async () => {
  await consumer?.stop();
  await nats?.close();
});

const won = (round: number) =>
  makeEvent(SUBJECTS.roundWon, {
    round,
    winnerUserId: randomUUID(),
    winnerUsername: 'someone',
    potCents: 100,
    clicks: 100,
    wonAt: new Date().toISOString(),
  });

describe('poison events', () => {
  it('go to the dead-letter stream after the delivery limit, counted, and the rest flows on', async () => {
    const durable = `dead-letters-${randomUUID().slice(0, 8)}`;
    const poison = won(1_000_001);
    const good = won(1_000_002);
    const deliveries = new Map<string, number>();
    const handled: string[] = [];
    const metrics = createMetrics('test', false);
    observeConsumerLag(metrics, nats);
    await publishEvent(nats.js, poison);
    await publishEvent(nats.js, good);
    consumer = startConsumer({
      nats,
      stream: STREAMS.game.name,
      durable,
      subjects: [SUBJECTS.roundWon],
      log: pino({ level: 'silent' }),
      maxDeliveries: 3,
      redelivery: { baseMs: 10, capMs: 20 },
      handle: async (event: EventEnvelope) => {
        deliveries.set(event.id, (deliveries.get(event.id) ?? 0) + 1);
        if (event.id === poison.id) throw new Error('this event can never be handled');
        handled.push(event.id);
      },
    });

    const dead = await eventually(
      () =>
        nats.jsm.streams.getMessage(STREAMS.deadLetters.name, {
          last_by_subj: `dead.GAME_EVENTS.${durable}`,
        }),
      'the poison event in DEAD_LETTERS',
    );
    expect(JSON.parse(new TextDecoder().decode(dead.data))).toMatchObject({ id: poison.id });
    expect(dead.header.get('Omc-Dead-Subject')).toBe(SUBJECTS.roundWon);
    expect(dead.header.get('Omc-Dead-Consumer')).toBe(durable);
    expect(dead.header.get('Omc-Dead-Deliveries')).toBe('3');
    expect(dead.header.get('Omc-Dead-Reason')).toBe('this event can never be handled');

    // The rest flows on, and the poison event is not delivered again.
    const after = won(1_000_003);
    await publishEvent(nats.js, after);
    await eventually(() => handled.includes(after.id), 'the event after it');
    expect(handled).toContain(good.id);
    expect(deliveries.get(poison.id)).toBe(3);
    // Nothing left waiting for the consumer, acknowledged or not (acks travel on their own).
    await eventually(async () => {
      const info = await nats.jsm.consumers.info(STREAMS.game.name, durable);
      return info.num_ack_pending === 0 && info.num_pending === 0;
    }, 'the consumer to hold nothing');
    expect(deliveries.get(poison.id)).toBe(3);

    const text = await metrics.registry.metrics();
    expect(text).toContain(
      `nats_consumer_dead_letters_total{stream="GAME_EVENTS",consumer="${durable}",service="test"} 1`,
    );
  });
});
