// One subject of a stream, read by every instance on its own: an ordered (ephemeral) JetStream consumer,
// for what each pod must hear (a winner to announce to its sockets, a session to refuse), where a shared
// durable consumer would deliver each message to one pod only. After an interruption it resumes after the
// last sequence it saw, so nothing published while NATS was away is missed and nothing is read twice; a
// stream recreated meanwhile (numbering from 1 again) is read from the start point again.
import { DeliverPolicy, type ConsumerMessages, type JsMsg } from 'nats';
import type { Logger } from 'pino';
import type { Nats } from './nats.js';
import { backoff, RETRY_POLICIES } from './retry.js';

export interface SubjectWatchOptions {
  nats: Nats;
  stream: string;
  subject: string;
  /** Where a first read starts: only messages published from now on, or those since a moment. */
  from: 'new' | (() => Date);
  /** Runs before each (re)start, e.g. to make sure the stream exists. */
  prepare?: () => Promise<void>;
  onMessage: (msg: JsMsg) => void;
  log: Logger;
  /** Names the reader in the log line of an interruption. */
  name: string;
}

export interface SubjectWatch {
  /** Resolves once the consumer is in place (tests wait for it before publishing). */
  ready: Promise<void>;
  /**
   * Resolves once every message stored when the first read started has been handed to onMessage (a
   * replay from `from`): at once for `from: 'new'` or nothing to read. Waits while NATS cannot be reached.
   */
  caughtUp: Promise<void>;
  /** Whether `caughtUp` has resolved. */
  isCaughtUp(): boolean;
  stop(): Promise<void>;
}

export function watchSubject(options: SubjectWatchOptions): SubjectWatch {
  const { nats, stream, subject, log } = options;
  let stopped = false;
  let lastSequence: number | undefined;
  let messages: ConsumerMessages | undefined;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  let caughtUp = false;
  let markCaughtUp: () => void = () => undefined;
  const replayed = new Promise<void>((resolve) => (markCaughtUp = resolve)).then(() => {
    caughtUp = true;
  });

  let restarts = 0;
  const loop = async () => {
    while (!stopped) {
      try {
        await options.prepare?.();
        const streamEnd = (await nats.jsm.streams.info(stream)).state.last_seq;
        if (lastSequence !== undefined && streamEnd < lastSequence) lastSequence = undefined;
        if (lastSequence === undefined && options.from === 'new') lastSequence = streamEnd;
        const consumer = await nats.js.consumers.get(stream, {
          filterSubjects: subject,
          ...(lastSequence === undefined && options.from !== 'new'
            ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: options.from().toISOString() }
            : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: (lastSequence ?? 0) + 1 }),
        });
        messages = await consumer.consume({ max_messages: 256 });
        // Nothing to replay when the consumer was made (its info as created): caught up already.
        if ((await consumer.info(true)).num_pending === 0) markCaughtUp();
        markReady();
        restarts = 0;
        for await (const msg of messages) {
          if (stopped) break;
          lastSequence = msg.seq;
          options.onMessage(msg);
          if (msg.info.pending === 0) markCaughtUp();
        }
      } catch (error) {
        if (stopped) break;
        log.warn({ err: error, stream, subject }, `${options.name} interrupted; resuming`);
      }
      if (!stopped) await backoff(RETRY_POLICIES.consumerRestart, restarts++);
    }
  };
  const done = loop();

  return {
    ready,
    caughtUp: replayed,
    isCaughtUp: () => caughtUp,
    async stop() {
      stopped = true;
      messages?.stop();
      await Promise.race([done, new Promise((r) => setTimeout(r, 2000))]);
    },
  };
}
