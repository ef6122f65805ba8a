// Sockets of ended sessions: each instance reads auth.session.ended.v1 (service-kit's shared reader, as
// the game does), refuses a handshake whose token names an ended session, and disconnects an open socket
// of a session as its end arrives. A socket opened before this instance replayed the recent ends is
// disconnected by the replay itself, which announces each ended session as it reads it.
// A signed-in socket lives no longer than its token: a sweep every SWEEP_MS disconnects each socket whose
// token has expired or whose session has ended, and, once the bus has not been heard from for longer
// than ENDED_SESSIONS_BLIND_MS (ends may be unknown), every signed-in socket; a handshake then is refused
// too, until the bus answers again. The client signs in again (a fresh token) and reconnects.
import type { AccessTokenClaims } from '@omc/contracts';
import { BLIND_MESSAGE, ENDED_SESSION_MESSAGE, EndedSessions, watchEndedSessions } from '@omc/service-kit';
import type { Namespace } from 'socket.io';
import type { Deps } from '../deps.js';

/** How often open sockets are checked for an expired token, an ended session or a blind reader. */
export const SWEEP_MS = 1_000;

export interface EndedSessionSockets {
  /** Why a handshake with these claims is refused, or undefined. */
  refusal(claims: Pick<AccessTokenClaims, 'sid'>): string | undefined;
  /** Disconnects the sockets of each session ended from now on, and sweeps for expired tokens. */
  attach(sockets: Namespace): void;
  /** Resolves once the sessions ended before this instance started are known. */
  replayed: Promise<void>;
  stop(): Promise<void>;
}

type ViewerData = { viewer?: { kind: string; claims?: AccessTokenClaims } };
const claimsOf = (data: unknown) => {
  const viewer = (data as ViewerData).viewer;
  return viewer?.kind === 'user' ? viewer.claims : undefined;
};

export function watchEndedSessionSockets(
  deps: Pick<Deps, 'nats' | 'log' | 'clock'>,
  options: { blindAfterMs?: number } = {},
): EndedSessionSockets {
  const sessions = new EndedSessions(deps.clock, options.blindAfterMs);
  const watch = watchEndedSessions({ nats: deps.nats, sessions, clock: deps.clock, log: deps.log });
  let sweep: NodeJS.Timeout | undefined;
  /** Whether a socket with these claims must go: its token expired, its session ended, or ends unknown. */
  const mustGo = (claims: AccessTokenClaims) =>
    claims.exp * 1000 <= deps.clock() || sessions.has(claims.sid) || (sessions.replayed && sessions.blind);
  return {
    refusal: (claims) =>
      sessions.has(claims.sid)
        ? ENDED_SESSION_MESSAGE
        : sessions.replayed && sessions.blind
          ? BLIND_MESSAGE
          : undefined,
    attach(namespace) {
      sessions.onEnded((sessionId) => {
        for (const socket of namespace.sockets.values())
          if (claimsOf(socket.data)?.sid === sessionId) socket.disconnect(true);
      });
      sweep = setInterval(() => {
        for (const socket of namespace.sockets.values()) {
          const claims = claimsOf(socket.data);
          if (claims && mustGo(claims)) socket.disconnect(true);
        }
      }, SWEEP_MS);
      sweep.unref();
    },
    replayed: watch.caughtUp,
    stop: async () => {
      clearInterval(sweep);
      await watch.stop();
    },
  };
}
