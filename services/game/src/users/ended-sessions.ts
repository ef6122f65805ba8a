// The sessions their owners ended (auth.session.ended.v1), held by every game instance: a click whose
// token names one is refused, so a thief's copy of an access token stops clicking as soon as the owner
// ends that session, not when the token expires. Each instance reads the events with an ordered
// (ephemeral) consumer of its own: at start from the last ACCESS_TOKEN_TTL (and a margin) back, so a new
// or restarted instance knows every session whose tokens may still be presented; after an interruption
// from the message after the last one it saw. A session is forgotten once its last token has expired.
import { ERROR_CODE, parseEvent, STREAMS, SUBJECTS, type EventPayload } from '@omc/contracts';
import {
  ACCESS_TOKEN_TTL_SECONDS,
  AppError,
  watchSubject,
  type Nats,
  type SubjectWatch,
} from '@omc/service-kit';
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

/** How far back a starting instance reads: every ended session whose tokens may still be presented. */
export const ENDED_SESSIONS_LOOKBACK_MS = (ACCESS_TOKEN_TTL_SECONDS + 5 * 60) * 1000;

export class EndedSessions {
  /** Session id → until when (ms) its tokens may still be presented. */
  private readonly until = new Map<string, number>();

  constructor(private readonly clock: () => number) {}

  add(sessionId: string, until: number): void {
    if (until <= this.clock()) return;
    this.until.set(sessionId, Math.max(until, this.until.get(sessionId) ?? 0));
    // Bounded by the sessions ended within one token lifetime; the expired ones go as new ones come.
    if (this.until.size % 256 === 0) this.prune();
  }

  /** Whether a token naming this session must be refused. */
  has(sessionId: string | undefined): boolean {
    if (sessionId === undefined || this.until.size === 0) return false;
    const until = this.until.get(sessionId);
    return until !== undefined && until > this.clock();
  }

  get size(): number {
    return this.until.size;
  }

  prune(): void {
    const now = this.clock();
    for (const [id, until] of this.until) if (until <= now) this.until.delete(id);
  }
}

/** onRequest hook after `authenticate`: a token of a session its owner ended is a 401. */
export function refuseEndedSessions(sessions: EndedSessions) {
  return async function refuseEndedSession(request: FastifyRequest): Promise<void> {
    if (sessions.has(request.user.sid))
      throw new AppError(
        ERROR_CODE.UNAUTHORIZED,
        401,
        'This session was ended from your account; please sign in again',
      );
  };
}

export function watchEndedSessions(options: {
  nats: Nats;
  sessions: EndedSessions;
  clock: () => number;
  log: Logger;
}): SubjectWatch {
  const { sessions, log } = options;
  return watchSubject({
    nats: options.nats,
    stream: STREAMS.auth.name,
    subject: SUBJECTS.sessionEnded,
    from: () => new Date(options.clock() - ENDED_SESSIONS_LOOKBACK_MS),
    onMessage: (msg) => {
      let ended: EventPayload<typeof SUBJECTS.sessionEnded>;
      try {
        ended = parseEvent(SUBJECTS.sessionEnded, msg.data).data;
      } catch (error) {
        log.warn({ err: error, subject: msg.subject }, 'session ended event does not match its contract');
        return;
      }
      sessions.add(ended.sessionId, Date.parse(ended.until));
    },
    log,
    name: 'ended sessions consumer',
  });
}
