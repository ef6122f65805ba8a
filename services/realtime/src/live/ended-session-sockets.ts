// Sockets of ended sessions: each instance reads auth.session.ended.v1 (service-kit's shared reader, as
// the game does), refuses a handshake whose token names an ended session, and disconnects an open socket
// of a session as its end arrives. A socket opened before this instance replayed the recent ends is
// disconnected by the replay itself, which announces each ended session as it reads it.
import type { AccessTokenClaims } from '@omc/contracts';
import { ENDED_SESSION_MESSAGE, EndedSessions, watchEndedSessions } from '@omc/service-kit';
import type { Namespace } from 'socket.io';
import type { Deps } from '../deps.js';

export interface EndedSessionSockets {
  /** Why a handshake with these claims is refused, or undefined. */
  refusal(claims: Pick<AccessTokenClaims, 'sid'>): string | undefined;
  /** Disconnects the sockets of each session ended from now on. */
  attach(sockets: Namespace): void;
  /** Resolves once the sessions ended before this instance started are known. */
  replayed: Promise<void>;
  stop(): Promise<void>;
}

export function watchEndedSessionSockets(deps: Pick<Deps, 'nats' | 'log' | 'clock'>): EndedSessionSockets {
  const sessions = new EndedSessions(deps.clock);
  const watch = watchEndedSessions({ nats: deps.nats, sessions, clock: deps.clock, log: deps.log });
  return {
    refusal: (claims) => (sessions.has(claims.sid) ? ENDED_SESSION_MESSAGE : undefined),
    attach(namespace) {
      sessions.onEnded((sessionId) => {
        for (const socket of namespace.sockets.values()) {
          const viewer = (socket.data as { viewer?: { kind: string; claims?: AccessTokenClaims } }).viewer;
          if (viewer?.kind === 'user' && viewer.claims?.sid === sessionId) socket.disconnect(true);
        }
      });
    },
    replayed: watch.caughtUp,
    stop: () => watch.stop(),
  };
}
