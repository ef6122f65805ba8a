// Round won events, once each per instance: an ordered (ephemeral) JetStream consumer of this instance's
// own, starting at new messages. After an interruption it resumes after the last sequence it saw, so a
// winner announced while NATS was away still reaches this instance's players, and none twice.
import { parseEvent, STREAMS, SUBJECTS, type EventPayload } from '@omc/contracts';
import { backoff, ensureStream, RETRY_POLICIES, type Nats } from '@omc/service-kit';
import { DeliverPolicy, type ConsumerMessages } from 'nats';
import type { Logger } from 'pino';

export type RoundWon = EventPayload<typeof SUBJECTS.roundWon>;

export interface WinnersFeedOptions {
  nats: Nats;
  log: Logger;
  onWinner: (won: RoundWon) => void;
  onResult?: (subject: string, outcome: 'ok' | 'invalid') => void;
}

export interface WinnersFeed {
  /** Resolves once the consumer is in place (tests wait for it before publishing). */
  ready: Promise<void>;
  stop(): Promise<void>;
}

const RECENT_IDS = 256;

export function startWinnersFeed(options: WinnersFeedOptions): WinnersFeed {
  const { nats, log } = options;
  let stopped = false;
  let lastSequence: number | undefined;
  let messages: ConsumerMessages | undefined;
  const recent: string[] = [];
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const deliver = (data: Uint8Array, subject: string) => {
    let won: RoundWon;
    let id: string;
    try {
      const event = parseEvent(SUBJECTS.roundWon, data);
      won = event.data;
      id = event.id;
    } catch (error) {
      log.warn({ err: error, subject }, 'round won event does not match its contract; dropped');
      options.onResult?.(subject, 'invalid');
      return;
    }
    // The stream deduplicates by id, but a republish outside its window must still be announced once.
    if (recent.includes(id)) return;
    recent.push(id);
    if (recent.length > RECENT_IDS) recent.shift();
    options.onResult?.(subject, 'ok');
    options.onWinner(won);
  };

  let restarts = 0;
  const loop = async () => {
    while (!stopped) {
      try {
        await ensureStream(nats.jsm, STREAMS.game);
        const streamEnd = (await nats.jsm.streams.info(STREAMS.game.name)).state.last_seq;
        // First start: from the next new message. A stream that was recreated numbers from 1 again.
        if (lastSequence === undefined || streamEnd < lastSequence) lastSequence = streamEnd;
        const consumer = await nats.js.consumers.get(STREAMS.game.name, {
          filterSubjects: SUBJECTS.roundWon,
          deliver_policy: DeliverPolicy.StartSequence,
          opt_start_seq: lastSequence + 1,
        });
        messages = await consumer.consume({ max_messages: 64 });
        markReady();
        restarts = 0;
        for await (const msg of messages) {
          if (stopped) break;
          lastSequence = msg.seq;
          deliver(msg.data, msg.subject);
        }
      } catch (error) {
        if (stopped) break;
        log.warn({ err: error }, 'round won consumer interrupted; resuming');
      }
      if (!stopped) await backoff(RETRY_POLICIES.consumerRestart, restarts++);
    }
  };
  const done = loop();

  return {
    ready,
    async stop() {
      stopped = true;
      messages?.stop();
      await Promise.race([done, new Promise((r) => setTimeout(r, 2000))]);
    },
  };
}
