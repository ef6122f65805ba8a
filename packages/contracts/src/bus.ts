// Least privilege on the bus: one NATS user per service, allowed to publish its own subjects and to read
// through its own durable consumers only. The NATS server's configuration (native, compose, Kubernetes)
// is generated from this table; a service's credentials travel in its NATS_URL (nats://user:pass@host).
import { STREAMS, SUBJECTS } from './events.js';

export type BusUserName = 'auth' | 'game' | 'payments' | 'realtime';

export interface BusUser {
  /** Subjects it may publish (its own events), besides the JetStream API calls below. */
  publishes: string[];
  /** Core NATS subjects it may subscribe to (its replies arrive on its own inbox prefix). */
  subscribes: string[];
  /** The stream it owns (creates and updates). */
  ownsStream?: string;
  /** Its durable consumers: [stream, durable]. */
  consumers: [stream: string, durable: string][];
  /** Ordered (ephemeral) consumers it reads a stream's subject with: [stream, subject]. */
  watches?: [stream: string, subject: string][];
  /** It answers requests (publishing to the asker's reply subject only). */
  answersRequests?: boolean;
}

export const BUS_USERS: Record<BusUserName, BusUser> = {
  auth: {
    publishes: [...STREAMS.auth.subjects],
    subscribes: [],
    ownsStream: STREAMS.auth.name,
    consumers: [[STREAMS.auth.name, 'auth-mail']],
  },
  game: {
    publishes: [...STREAMS.game.subjects, SUBJECTS.gameState],
    subscribes: [SUBJECTS.gameStateRequest],
    ownsStream: STREAMS.game.name,
    consumers: [
      [STREAMS.auth.name, 'game-auth'],
      [STREAMS.payments.name, 'game-payments'],
    ],
    // Every instance reads the sessions their owners ended (each refuses their clicks itself).
    watches: [[STREAMS.auth.name, SUBJECTS.sessionEnded]],
    answersRequests: true,
  },
  payments: {
    publishes: [...STREAMS.payments.subjects],
    subscribes: [],
    ownsStream: STREAMS.payments.name,
    consumers: [
      [STREAMS.auth.name, 'payments-users'],
      [STREAMS.game.name, 'payments-round-won'],
    ],
  },
  realtime: {
    publishes: [SUBJECTS.gameStateRequest],
    subscribes: [SUBJECTS.gameState],
    // The profile stamps: each event that changes a player's profile, handled once across instances.
    consumers: [
      [STREAMS.auth.name, 'realtime-profile-stamps'],
      [STREAMS.payments.name, 'realtime-profile-stamps'],
    ],
    // Winners are announced from the game's stream, read from the newest message on; the sockets of
    // ended sessions are closed from auth's.
    watches: [
      [STREAMS.game.name, SUBJECTS.roundWon],
      [STREAMS.auth.name, SUBJECTS.sessionEnded],
    ],
  },
};

/** Where a user's request replies arrive: its own prefix, so no other user can read them. */
export const busInboxPrefix = (user: string) => `_INBOX_${user}`;

/**
 * Every subject a user may publish and subscribe to, JetStream API calls included, and the API calls it
 * is denied (a deny wins over an allow). A watch creates consumers of any name (nats.js names ordered
 * consumers itself), always filtered to the watched subject (the filter is in the API subject, which the
 * server checks against the consumer's configuration), and deletes its own when it resets them: the
 * durable consumers of other services on that stream are denied by name, so a watcher can neither take
 * one over (a create under its name is an update), read its messages, nor delete it.
 */
export function busPermissions(name: BusUserName): {
  publish: string[];
  publishDeny: string[];
  subscribe: string[];
} {
  const user = BUS_USERS[name];
  const publish = [
    ...user.publishes,
    '$JS.API.INFO',
    '$JS.API.STREAM.INFO.*',
    '$JS.API.STREAM.NAMES',
    ...(user.ownsStream
      ? [`$JS.API.STREAM.CREATE.${user.ownsStream}`, `$JS.API.STREAM.UPDATE.${user.ownsStream}`]
      : []),
    // A durable consumer that gives up on an event copies it to DEAD_LETTERS under its own name.
    ...(user.consumers.length > 0
      ? [
          `$JS.API.STREAM.CREATE.${STREAMS.deadLetters.name}`,
          `$JS.API.STREAM.UPDATE.${STREAMS.deadLetters.name}`,
        ]
      : []),
    ...user.consumers.map(([stream, durable]) => `dead.${stream}.${durable}`),
    ...user.consumers.flatMap(([stream, durable]) => [
      `$JS.API.CONSUMER.CREATE.${stream}.${durable}`,
      `$JS.API.CONSUMER.CREATE.${stream}.${durable}.>`,
      `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.${durable}`,
      `$JS.API.CONSUMER.INFO.${stream}.${durable}`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`,
      `$JS.ACK.${stream}.${durable}.>`,
    ]),
    ...(user.watches ?? []).flatMap(([stream, subject]) => [
      `$JS.API.CONSUMER.CREATE.${stream}.*.${subject}`,
      `$JS.API.CONSUMER.INFO.${stream}.*`,
      `$JS.API.CONSUMER.DELETE.${stream}.*`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream}.*`,
    ]),
  ];
  const watched = [...new Set((user.watches ?? []).map(([stream]) => stream))];
  const publishDeny = watched.flatMap((stream) =>
    othersDurables(name, stream).flatMap((durable) => [
      `$JS.API.CONSUMER.*.${stream}.${durable}`,
      `$JS.API.CONSUMER.*.${stream}.${durable}.>`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`,
    ]),
  );
  return { publish, publishDeny, subscribe: [...user.subscribes, `${busInboxPrefix(name)}.>`] };
}

/** The durable consumers other users hold on a stream. */
function othersDurables(name: BusUserName, stream: string): string[] {
  const own = new Set(BUS_USERS[name].consumers.filter(([s]) => s === stream).map(([, d]) => d));
  const all = Object.values(BUS_USERS).flatMap((u) =>
    u.consumers.filter(([s]) => s === stream).map(([, d]) => d),
  );
  return [...new Set(all)].filter((d) => !own.has(d)).sort();
}
