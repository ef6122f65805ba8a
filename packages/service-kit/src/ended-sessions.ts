// The sessions their owners ended (auth.session.ended.v1), held by every instance of a service that
// accepts access tokens on its own (the game's routes, realtime's sockets): a token naming one is refused.
// Each instance reads the events with an ordered (ephemeral) consumer of its own: at start from the last
// ACCESS_TOKEN_TTL (and a margin) back, so a new or restarted instance knows every session whose tokens
// may still be presented; after an interruption from the message after the last one it saw. Until that
// first replay is done the instance cannot tell an ended session from a live one: `replayed` says so.
// A session is forgotten once its last token has expired.
import { parseEvent, STREAMS, SUBJECTS, type AccessTokenClaims, type EventPayload } from '@omc/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ACCESS_TOKEN_TTL_SECONDS } from './auth.js';
import { AppError } from './errors.js';
import { pingNats, type Nats } from './nats.js';
import { watchSubject, type SubjectWatch } from './subject-watch.js';

/** How far back a starting instance reads: every ended session whose tokens may still be presented. */
export const ENDED_SESSIONS_LOOKBACK_MS = (ACCESS_TOKEN_TTL_SECONDS + 5 * 60) * 1000;

export const ENDED_SESSION_MESSAGE = 'This session was ended from your account; please sign in again';

/**
 * The longest an instance goes on trusting what it knows of ended sessions without hearing from the bus:
 * past it (NATS away or not answering), a token is refused with 503 until the bus answers again.
 */
export const ENDED_SESSIONS_BLIND_MS = 30_000;
/** How often a reader asks the bus whether it still answers (a fraction of the bound). */
const PROBE_FRACTION = 6;

export const BLIND_MESSAGE =
  'This server cannot currently learn which sessions have ended; try again in a moment';

export class EndedSessions {
  /** Session id → until when (ms) its tokens may still be presented. */
  private readonly until = new Map<string, number>();
  private readonly listeners: ((sessionId: string) => void)[] = [];
  private replayDone = false;
  private heardAt: number;

  constructor(
    private readonly clock: () => number,
    /** How long without hearing from the bus before tokens are refused (ENDED_SESSIONS_BLIND_MS). */
    readonly blindAfterMs: number = ENDED_SESSIONS_BLIND_MS,
  ) {
    this.heardAt = clock();
  }

  /** The bus answered (or delivered an end) at this moment. */
  heard(at: number = this.clock()): void {
    this.heardAt = Math.max(this.heardAt, at);
  }

  /** Whether the bus has not been heard from for longer than the bound: ended sessions may be unknown. */
  get blind(): boolean {
    return this.clock() - this.heardAt > this.blindAfterMs;
  }

  add(sessionId: string, until: number): void {
    if (until <= this.clock()) return;
    this.until.set(sessionId, Math.max(until, this.until.get(sessionId) ?? 0));
    // Bounded by the sessions ended within one token lifetime; the expired ones go as new ones come.
    if (this.until.size % 256 === 0) this.prune();
    for (const listener of this.listeners) listener(sessionId);
  }

  /** Whether a token naming this session must be refused. */
  has(sessionId: string | undefined): boolean {
    if (sessionId === undefined || this.until.size === 0) return false;
    const until = this.until.get(sessionId);
    return until !== undefined && until > this.clock();
  }

  /** Calls `listener` with each session ended from now on (an open socket of it is closed). */
  onEnded(listener: (sessionId: string) => void): void {
    this.listeners.push(listener);
  }

  /** Whether every session ended within a token's lifetime before this instance started is known. */
  get replayed(): boolean {
    return this.replayDone;
  }

  markReplayed(): void {
    this.replayDone = true;
  }

  get size(): number {
    return this.until.size;
  }

  prune(): void {
    const now = this.clock();
    for (const [id, until] of this.until) if (until <= now) this.until.delete(id);
  }
}

/** Reads auth.session.ended.v1 into `sessions`, and marks them replayed once the first read caught up. */
export function watchEndedSessions(options: {
  nats: Nats;
  sessions: EndedSessions;
  clock: () => number;
  log: Logger;
  /** Runs before each (re)start, e.g. to make sure auth's stream exists. */
  prepare?: () => Promise<void>;
}): SubjectWatch {
  const { sessions, log } = options;
  // The bus is asked, a few times per bound, whether it answers; each answer (and each end read) is
  // "heard". While it does not, the bound runs out and tokens are refused (endedSessionRefusal).
  const probeMs = Math.max(50, Math.floor(sessions.blindAfterMs / PROBE_FRACTION));
  const probe = setInterval(() => {
    const asked = options.clock();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('the bus did not answer')), probeMs);
    });
    Promise.race([pingNats(options.nats), late])
      .then(() => watch.isCaughtUp() && sessions.heard(asked))
      .catch(() => undefined)
      .finally(() => clearTimeout(timer));
  }, probeMs);
  probe.unref();
  const watch = watchSubject({
    nats: options.nats,
    stream: STREAMS.auth.name,
    subject: SUBJECTS.sessionEnded,
    from: () => new Date(options.clock() - ENDED_SESSIONS_LOOKBACK_MS),
    ...(options.prepare ? { prepare: options.prepare } : {}),
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
  void watch.caughtUp.then(() => {
    sessions.heard();
    sessions.markReplayed();
  });
  return {
    ...watch,
    async stop() {
      clearInterval(probe);
      await watch.stop();
    },
  };
}

/**
 * Why a verified token must be refused here: its session was ended, or this instance has not replayed
 * the ended sessions yet (it cannot tell). Undefined when the token may be served.
 */
export function endedSessionRefusal(
  sessions: EndedSessions,
  claims: Pick<AccessTokenClaims, 'sid'>,
): AppError | undefined {
  if (!sessions.replayed)
    return new AppError(
      'UNAVAILABLE',
      503,
      'This server is still learning which sessions have ended; try again in a moment',
    );
  if (sessions.has(claims.sid)) return new AppError('UNAUTHORIZED', 401, ENDED_SESSION_MESSAGE);
  if (sessions.blind) return new AppError('UNAVAILABLE', 503, BLIND_MESSAGE);
  return undefined;
}

/**
 * One hook for a whole app: every request whose route authenticated a token (request.user set by the
 * route tree's onRequest hooks) is refused when that token's session was ended, and answered 503 with
 * Retry-After while the instance has not replayed the ended sessions. Added as a preParsing hook at the
 * app's root, so it runs after every route tree's onRequest hooks and before any body is read.
 */
export function refuseEndedSessions(
  sessions: EndedSessions,
  options: {
    /**
     * A more telling refusal for a token of an ended session, when the service knows why its session
     * ended (the game: the account was suspended, and the player is told the operator's reason).
     */
    explain?: (userId: string) => Promise<AppError | undefined>;
  } = {},
) {
  return async function refuseEndedSession(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const claims = request.user as Partial<AccessTokenClaims> | null | undefined;
    if (!claims || typeof claims.sub !== 'string') return;
    const refusal = endedSessionRefusal(sessions, claims);
    if (!refusal) return;
    if (refusal.statusCode === 503) void reply.header('retry-after', '1');
    else if (options.explain) throw (await options.explain(claims.sub).catch(() => undefined)) ?? refusal;
    throw refusal;
  };
}
