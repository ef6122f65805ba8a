// The outbox relay publishes outside any transaction: it claims its rows (a short update), publishes, then
// marks them. A slow JetStream acknowledgement must not hold a row lock that a business transaction (or
// another instance's relay) would wait on, and two relays must not publish the same row at once.
import { randomUUID } from 'node:crypto';
import { makeEvent, STREAMS, SUBJECTS } from '@omc/contracts';
import {
  connectNats,
  createDb,
  enqueueEvent,
  ensureStream,
  startOutboxRelay,
  type Nats,
  type OutboxTable,
} from '@omc/service-kit';
import { eventually, freshDatabase, resetNats, testInfra } from '@omc/testkit';
import { sql, type Kysely } from 'kysely';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const log = pino({ level: 'silent' });
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Kysely<OutboxTable>;
let nats: Nats;

beforeAll(async () => {
  await resetNats();
  database = await freshDatabase();
  db = createDb<OutboxTable>(database.url, { name: 'outbox-test' });
  nats = await connectNats(testInfra().natsUrl, 'outbox-test');
  await ensureStream(nats.jsm, STREAMS.game);
});

/** Relays and gates a test leaves open when it fails, stopped after it. */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await nats.close();
  await db.destroy();
  await database.drop();
});

/** The real connection, whose JetStream publishes wait until the test opens the gate. */
function gated(): { nats: Nats; published: string[]; waiting: () => number; open: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  cleanups.push(() => open());
  const published: string[] = [];
  let waiting = 0;
  const js = new Proxy(nats.js, {
    get(target, prop, receiver) {
      if (prop !== 'publish') return Reflect.get(target, prop, receiver);
      return async (...args: Parameters<typeof nats.js.publish>) => {
        waiting++;
        await gate;
        published.push(args[2]?.msgID ?? '');
        return target.publish(...args);
      };
    },
  });
  return { nats: { ...nats, js }, published, waiting: () => waiting, open };
}

function winEvent() {
  return makeEvent(SUBJECTS.roundWon, {
    round: Math.floor(Math.random() * 1e6) + 1,
    winnerUserId: randomUUID(),
    winnerUsername: 'someone',
    potCents: 100,
    clicks: 10,
    wonAt: new Date().toISOString(),
  });
}

describe('outbox relay', () => {
  it('holds no row lock while it waits for JetStream, and a second relay does not publish the same row', async () => {
    const event = winEvent();
    await db.transaction().execute((trx) => enqueueEvent(trx, event));
    const first = gated();
    const relay = startOutboxRelay(db, first.nats, log, { intervalMs: 50 });
    cleanups.push(() => relay.stop());
    await eventually(() => first.waiting() > 0, 'the relay to start publishing');

    // A transaction touching the row (as a business change or another relay would) goes through at once.
    const locked = await db
      .transaction()
      .execute((trx) =>
        sql`select id from outbox where id = ${event.id} for update nowait`.execute(trx).then((r) => r.rows),
      );
    expect(locked).toHaveLength(1);

    // A second relay meanwhile finds the row claimed and leaves it alone.
    const second = gated();
    second.open();
    const other = startOutboxRelay(db, second.nats, log, { intervalMs: 50 });
    cleanups.push(() => other.stop());
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(second.waiting()).toBe(0);

    first.open();
    await relay.drain(5000);
    expect(first.published).toEqual([event.id]);
    expect(second.published).toEqual([]);
  });

  it('publishes a batch to the stream in the order it was written and marks every row', async () => {
    const events = Array.from({ length: 20 }, () => winEvent());
    for (const event of events) await db.transaction().execute((trx) => enqueueEvent(trx, event));
    const spy = gated();
    spy.open();
    const relay = startOutboxRelay(db, spy.nats, log, { intervalMs: 50 });
    cleanups.push(() => relay.stop());
    await relay.drain(5000);
    expect(spy.published).toEqual(events.map((e) => e.id));
    const last = (await nats.jsm.streams.info(STREAMS.game.name)).state.last_seq;
    const stored: string[] = [];
    for (let seq = last - events.length + 1; seq <= last; seq++) {
      const message = await nats.jsm.streams.getMessage(STREAMS.game.name, { seq });
      stored.push((message.json() as { id: string }).id);
    }
    expect(stored).toEqual(events.map((e) => e.id));
    const left = await db.selectFrom('outbox').select('id').where('published_at', 'is', null).execute();
    expect(left).toEqual([]);
  });
});
