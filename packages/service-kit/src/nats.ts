// NATS with JetStream: streams declared from packages/contracts, events published with their id as
// Nats-Msg-Id (JetStream drops duplicates), durable consumers that ack only after the work is done.
import {
  busInboxPrefix,
  EVENT_PAYLOADS,
  parseEvent,
  STREAMS,
  type EventEnvelope,
  type Subject,
} from '@omc/contracts';
import {
  AckPolicy,
  connect,
  DeliverPolicy,
  nanos,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type MsgHdrs,
  type NatsConnection,
  headers as natsHeaders,
} from 'nats';
import type { Counter } from 'prom-client';
import type { Logger } from 'pino';
import type { Metrics } from './metrics.js';
import { backoff, backoffDelay, RETRY_POLICIES, type RetryPolicy } from './retry.js';
import { consumeTraced } from './tracing.js';

export interface Nats {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  close(): Promise<void>;
}

/**
 * The servers of a NATS_URL and the user it names (nats://user:password@host:port): each service
 * connects as its own NATS user, whose permissions allow its own subjects only (packages/contracts' bus.ts).
 */
export function parseNatsUrl(url: string): { servers: string[]; user?: string; pass?: string } {
  let user: string | undefined;
  let pass: string | undefined;
  const servers = url.split(',').map((entry) => {
    const server = entry.trim();
    if (!server.includes('@')) return server;
    const parsed = new URL(server.includes('://') ? server : `nats://${server}`);
    user = decodeURIComponent(parsed.username);
    pass = decodeURIComponent(parsed.password);
    return `${parsed.protocol}//${parsed.host}`;
  });
  return { servers, ...(user ? { user, pass } : {}) };
}

export async function connectNats(url: string, name: string): Promise<Nats> {
  const { servers, user, pass } = parseNatsUrl(url);
  const nc = await connect({
    servers,
    // Replies arrive on the user's own inbox prefix, which no other user may subscribe to.
    ...(user ? { user, pass, inboxPrefix: busInboxPrefix(user) } : {}),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    pingInterval: 5000,
    maxPingOut: 2,
  });
  const jsm = await nc.jetstreamManager({ timeout: 5000 });
  const js = nc.jetstream({ timeout: 5000 });
  return {
    nc,
    js,
    jsm,
    close: async () => {
      if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
    },
  };
}

export async function pingNats(nats: Nats): Promise<void> {
  if (nats.nc.isClosed()) throw new Error('nats connection closed');
  await nats.nc.flush();
}

/** Stream settings from the service's configuration (NATS_STREAM_REPLICAS: 1 in development, 3 in production). */
export interface StreamSettings {
  replicas?: number;
}

const isPermissionError = (error: unknown) =>
  (error as { code?: string })?.code === 'PERMISSIONS_VIOLATION' ||
  String((error as Error)?.message).includes('Permissions Violation');

/**
 * Creates the stream, or updates its subjects and replicas; idempotent, safe from several instances at
 * once. A service may create and update only the stream it owns (its NATS user's permissions): for
 * another's stream the refusal is expected and ignored, and its consumers wait until the owner creates it.
 * Returns whether the stream was created or updated here.
 */
export async function ensureStream(
  jsm: JetStreamManager,
  stream: { name: string; subjects: readonly string[] },
  settings: StreamSettings = {},
): Promise<boolean> {
  const config = {
    name: stream.name,
    subjects: [...stream.subjects],
    storage: StorageType.File,
    num_replicas: settings.replicas ?? 1,
    duplicate_window: nanos(10 * 60 * 1000),
    max_age: nanos(STREAM_MAX_AGE_MS),
  };
  try {
    try {
      await jsm.streams.info(stream.name);
      await jsm.streams.update(stream.name, config);
      return true;
    } catch (error) {
      if (!String((error as Error).message).includes('not found')) throw error;
      try {
        await jsm.streams.add(config);
      } catch (addError) {
        if (!String((addError as Error).message).includes('already in use')) throw addError;
      }
      return true;
    }
  } catch (error) {
    if (isPermissionError(error)) return false;
    throw error;
  }
}

/** How long a stream keeps an event: consumers' processed-event marks must outlive it (retention). */
export const STREAM_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

export async function publishEvent<S extends Subject>(
  js: JetStreamClient,
  event: EventEnvelope<S>,
  headers?: MsgHdrs,
): Promise<void> {
  await js.publish(event.subject, JSON.stringify(event), {
    msgID: event.id,
    timeout: 5000,
    ...(headers ? { headers } : {}),
  });
}

export interface ConsumerOptions {
  nats: Nats;
  stream: string;
  durable: string;
  subjects: Subject[];
  log: Logger;
  /** Handles one event; throw to have it redelivered later. Must be idempotent. */
  handle: (event: EventEnvelope, msg: JsMsg) => Promise<void>;
  /** Called for every message handled (ok), failed (error), refused by its contract (invalid) or given up on (dead). */
  onResult?: (subject: string, outcome: ConsumeOutcome) => void;
  /** Deliveries of one event before it goes to the dead-letter stream (default DEFAULT_MAX_DELIVERIES). */
  maxDeliveries?: number;
  /** The wait before each redelivery of a failed event (default RETRY_POLICIES.eventRedelivery). */
  redelivery?: RetryPolicy;
  /** How long an event given to this consumer waits for its acknowledgement before it is given again. */
  ackWaitMs?: number;
}

export type ConsumeOutcome = 'ok' | 'error' | 'invalid' | 'dead';

/**
 * 30 deliveries with waits growing to a minute (full jitter, about 12 minutes on average): an outage of a
 * dependency is ridden out, a poison event stops being retried forever.
 */
export const DEFAULT_MAX_DELIVERIES = 30;

const deadLetterCounters = new WeakMap<Nats, Counter<'stream' | 'consumer'>>();
const deadLetterStreams = new WeakMap<Nats, Promise<boolean>>();

/**
 * Copies a message a consumer gives up on to DEAD_LETTERS (subject dead.<stream>.<consumer>), with where
 * it came from and why in its headers; its id keeps a redelivered copy from being stored twice.
 */
async function deadLetter(
  nats: Nats,
  msg: JsMsg,
  where: { stream: string; durable: string },
  reason: string,
): Promise<void> {
  let ready = deadLetterStreams.get(nats);
  if (!ready) {
    ready = ensureStream(nats.jsm, STREAMS.deadLetters);
    deadLetterStreams.set(nats, ready);
    ready.catch(() => deadLetterStreams.delete(nats));
  }
  await ready;
  const h = natsHeaders();
  h.set('Omc-Dead-Subject', msg.subject);
  h.set('Omc-Dead-Stream', where.stream);
  h.set('Omc-Dead-Sequence', String(msg.info.streamSequence));
  h.set('Omc-Dead-Consumer', where.durable);
  h.set('Omc-Dead-Deliveries', String(msg.info.deliveryCount));
  h.set('Omc-Dead-Reason', reason.slice(0, 500).replace(/[\r\n]+/g, ' '));
  await nats.js.publish(`dead.${where.stream}.${where.durable}`, msg.data, {
    msgID: `${where.stream}:${msg.info.streamSequence}:${where.durable}`,
    headers: h,
    timeout: 5000,
  });
}

export interface Consumer {
  stop(): Promise<void>;
}

/** One consumer as its messages see it: where it reads, what it does with an event, and when it gives up. */
interface ConsumerContext {
  options: ConsumerOptions;
  mine: { stream: string; durable: string };
  maxDeliveries: number;
  redelivery: RetryPolicy;
}

/**
 * Moves a message to the dead-letter stream and terminates it; false (the message kept) when the
 * dead-letter stream cannot be reached.
 */
async function giveUp(ctx: ConsumerContext, msg: JsMsg, subject: string, reason: string): Promise<boolean> {
  const { nats, log } = ctx.options;
  const { stream, durable } = ctx.mine;
  try {
    await deadLetter(nats, msg, ctx.mine, reason);
  } catch (error) {
    log.error({ err: error, subject, stream, durable }, 'dead-letter stream unreachable; event kept');
    return false;
  }
  msg.term();
  deadLetterCounters.get(nats)?.inc({ stream, consumer: durable });
  log.error(
    {
      subject,
      stream,
      durable,
      sequence: msg.info.streamSequence,
      deliveries: msg.info.deliveryCount,
      reason,
    },
    'event moved to the dead-letter stream',
  );
  return true;
}

/** Creates the durable consumer, or updates its filter and ack wait when it exists with another config. */
async function ensureConsumer(options: ConsumerOptions, ackWaitMs: number): Promise<void> {
  const { nats, stream, durable, subjects } = options;
  await nats.jsm.consumers
    .add(stream, {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      // One subject: filter_subject (every server). Several: no server-side filter, since
      // filter_subjects needs NATS 2.10 (Debian ships 2.9); other subjects are acked and skipped below.
      ...(subjects.length === 1 ? { filter_subject: subjects[0] } : {}),
      ack_wait: nanos(ackWaitMs),
      max_deliver: -1,
      max_ack_pending: 1000,
    })
    .catch(async (error) => {
      // Exists with another config: update it.
      if (String(error.message).includes('already in use') || String(error.message).includes('exists')) {
        await nats.jsm.consumers.update(stream, durable, {
          ...(subjects.length === 1 ? { filter_subject: subjects[0] } : {}),
          ack_wait: nanos(ackWaitMs),
        });
      } else throw error;
    });
}

/**
 * One delivered message: skipped (another subject), terminated (no contract, or not matching it), handled
 * and acked, or on failure naked with a delay, until maxDeliveries sends it to the dead-letter stream.
 */
async function deliver(ctx: ConsumerContext, msg: JsMsg): Promise<void> {
  const { options } = ctx;
  const subject = msg.subject as Subject;
  if (!options.subjects.includes(subject)) {
    msg.ack();
    return;
  }
  if (!(subject in EVENT_PAYLOADS)) {
    msg.term();
    options.onResult?.(subject, 'invalid');
    return;
  }
  let event: EventEnvelope;
  try {
    event = parseEvent(subject, msg.data);
  } catch (error) {
    options.log.error({ err: error, subject }, 'event does not match its contract; dropped');
    // It would never succeed: no redelivery, but a copy for the operator.
    if (!(await giveUp(ctx, msg, subject, `contract: ${(error as Error).message}`))) msg.term();
    options.onResult?.(subject, 'invalid');
    return;
  }
  try {
    await consumeTraced(subject, msg.headers, () => options.handle(event, msg));
    msg.ack();
    options.onResult?.(subject, 'ok');
  } catch (error) {
    const deliveries = msg.info.deliveryCount;
    if (deliveries >= ctx.maxDeliveries && (await giveUp(ctx, msg, subject, (error as Error).message))) {
      options.onResult?.(subject, 'dead');
      return;
    }
    options.log.warn(
      { err: error, subject, eventId: event.id, deliveries },
      'event handling failed; will retry',
    );
    msg.nak(Math.max(backoffDelay(ctx.redelivery, deliveries - 1), 100));
    options.onResult?.(subject, 'error');
  }
}

/**
 * A durable pull consumer that survives NATS restarts: it (re)creates its consumer and resumes. A
 * message that does not match its contract is terminated (it would never succeed); a failing handler
 * naks it with a delay so it comes back.
 */
export function startConsumer(options: ConsumerOptions): Consumer {
  const { nats, stream, durable, log, ackWaitMs = 30_000 } = options;
  const mine = { stream, durable };
  const ctx: ConsumerContext = {
    options,
    mine,
    maxDeliveries: options.maxDeliveries ?? DEFAULT_MAX_DELIVERIES,
    redelivery: options.redelivery ?? RETRY_POLICIES.eventRedelivery,
  };
  deadLetterCounters.get(nats)?.inc({ stream, consumer: durable }, 0);
  let known = durablesByConnection.get(nats);
  if (!known) durablesByConnection.set(nats, (known = new Set()));
  known.add(mine);
  let stopped = false;
  let current: { stop(): void } | undefined;

  let restarts = 0;
  const loop = async () => {
    while (!stopped) {
      try {
        await ensureConsumer(options, ackWaitMs);
        const consumer = await nats.js.consumers.get(stream, durable);
        const messages = await consumer.consume({ max_messages: 256, expires: 5000 });
        current = messages;
        restarts = 0;
        for await (const msg of messages) {
          if (stopped) break;
          await deliver(ctx, msg);
        }
      } catch (error) {
        if (stopped) break;
        log.warn({ err: error, stream, durable }, 'consumer interrupted; resuming');
      }
      if (!stopped) await backoff(RETRY_POLICIES.consumerRestart, restarts++);
    }
  };
  const done = loop();
  return {
    async stop() {
      known.delete(mine);
      stopped = true;
      current?.stop();
      await Promise.race([done, new Promise((r) => setTimeout(r, 2000))]);
    },
  };
}

const durablesByConnection = new WeakMap<Nats, Set<{ stream: string; durable: string }>>();

/**
 * Consumer lag on /metrics: for every durable consumer started on this connection, the messages the
 * stream holds that it has not been given yet and those given but not acknowledged, asked of JetStream at
 * each scrape (one request per consumer). -1 while JetStream does not answer.
 */
export function observeConsumerLag(metrics: Metrics, nats: Nats): void {
  const dead = metrics.counter(
    'nats_consumer_dead_letters_total',
    'Events this durable consumer gave up on and moved to the DEAD_LETTERS stream',
    ['stream', 'consumer'],
  );
  deadLetterCounters.set(nats, dead);
  for (const d of durablesByConnection.get(nats) ?? [])
    dead.inc({ stream: d.stream, consumer: d.durable }, 0);
  const ask = async (
    each: (
      durable: { stream: string; durable: string },
      info: { pending: number; ackPending: number } | undefined,
    ) => void,
  ) => {
    for (const durable of durablesByConnection.get(nats) ?? []) {
      const info = await nats.jsm.consumers.info(durable.stream, durable.durable).catch(() => undefined);
      each(durable, info && { pending: info.num_pending, ackPending: info.num_ack_pending });
    }
  };
  metrics.gauge(
    'nats_consumer_pending_messages',
    'Messages in the stream not yet delivered to this durable consumer',
    ['stream', 'consumer'],
    async function collect() {
      this.reset();
      await ask((d, info) => this.set({ stream: d.stream, consumer: d.durable }, info?.pending ?? -1));
    },
  );
  metrics.gauge(
    'nats_consumer_ack_pending_messages',
    'Messages delivered to this durable consumer and not yet acknowledged',
    ['stream', 'consumer'],
    async function collect() {
      this.reset();
      await ask((d, info) => this.set({ stream: d.stream, consumer: d.durable }, info?.ackPending ?? -1));
    },
  );
}
