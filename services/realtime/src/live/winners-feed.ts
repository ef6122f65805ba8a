// Round won events, once each per instance: an ordered (ephemeral) JetStream consumer of this instance's
// own, starting at new messages. After an interruption it resumes after the last sequence it saw, so a
// winner announced while NATS was away still reaches this instance's players, and none twice.
import { parseEvent, STREAMS, SUBJECTS, type EventPayload } from '@omc/contracts';
import { ensureStream, watchSubject, type Nats, type SubjectWatch } from '@omc/service-kit';
import type { Logger } from 'pino';

export type RoundWon = EventPayload<typeof SUBJECTS.roundWon>;

export interface WinnersFeedOptions {
  nats: Nats;
  log: Logger;
  onWinner: (won: RoundWon) => void;
  onResult?: (subject: string, outcome: 'ok' | 'invalid') => void;
}

export type WinnersFeed = SubjectWatch;

const RECENT_IDS = 256;

export function startWinnersFeed(options: WinnersFeedOptions): WinnersFeed {
  const { nats, log } = options;
  const recent: string[] = [];

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

  return watchSubject({
    nats,
    stream: STREAMS.game.name,
    subject: SUBJECTS.roundWon,
    // From the next new message at first start.
    from: 'new',
    prepare: () => ensureStream(nats.jsm, STREAMS.game).then(() => undefined),
    onMessage: (msg) => deliver(msg.data, msg.subject),
    log,
    name: 'round won consumer',
  });
}
