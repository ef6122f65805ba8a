// Who is here: the people on this instance (one per signed-in user, one per address for sockets without
// a token) and the total across instances (presence/user-count.ts), handed to the tick when it changed.
import type { Logger } from 'pino';
import type { Deps } from '../deps.js';
import { startUserCount, type UserCount } from '../presence/user-count.js';
import { Tally } from './connection-caps.js';
import type { LiveMetrics } from './live-metrics.js';
import type { Viewer } from './socket-auth.js';

export interface Presence {
  readonly count: UserCount;
  /** Counts a socket's person in; returns the call that counts them out. */
  join(viewer: Viewer, address: string): () => void;
  /** The user count to send with the next tick, if one is due (and clears it). */
  takeDue(): number | null;
  stop(): Promise<void>;
}

export function startPresence(
  deps: Pick<Deps, 'redis' | 'countSub' | 'config'> & { log: Logger },
  users: LiveMetrics['users'],
): Presence {
  const people = new Tally();
  /** The user count to send with the next tick, if any: counts ride along with the state, in one write. */
  let due: number | null = null;
  const count = startUserCount({
    redis: deps.redis,
    subscriber: deps.countSub,
    instance: deps.config.INSTANCE_NAME,
    log: deps.log,
    localCount: () => people.size,
    onTotal: (total) => {
      users.set(total);
      due = total;
    },
  });
  // The count again at a slow pace, with the next tick: a client that attached its listener after
  // connecting still gets it.
  const resend = setInterval(() => {
    due = count.total;
  }, deps.config.USER_COUNT_RESEND_MS);

  return {
    count,
    join(viewer, address) {
      const person = viewer.kind === 'user' ? `user:${viewer.claims.sub}` : `address:${address}`;
      people.add(person);
      count.markChanged();
      return () => {
        people.remove(person);
        count.markChanged();
      };
    },
    takeDue() {
      const value = due;
      due = null;
      return value;
    },
    async stop() {
      clearInterval(resend);
      await count.stop();
    },
  };
}
