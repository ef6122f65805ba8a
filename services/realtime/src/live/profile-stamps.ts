// A stamp per player of what their profile shows, so a reconnecting client reads the profile only when
// something of theirs changed while it was away. Two shared durable consumers (one per stream, each event
// handled by one instance) bump the player's version in Redis on every event that changes a profile;
// the round's number joins it, since a round's end changes every profile (purchases expire, the winner
// is credited). A redelivered event bumps twice: one needless read, never a missed one.
import { STREAMS, SUBJECTS, type Subject } from '@omc/contracts';
import { startConsumer, type Consumer, type Nats, type Redis } from '@omc/service-kit';
import type { Logger } from 'pino';
import type { LiveMetrics } from './live-metrics.js';

/** Events of auth that change what the profile shows (username, email, role, access, verification). */
const AUTH_SUBJECTS: Subject[] = [
  SUBJECTS.userRenamed,
  SUBJECTS.userEmailChanged,
  SUBJECTS.userRoleChanged,
  SUBJECTS.userDeleted,
  SUBJECTS.userAccessChanged,
  SUBJECTS.emailVerified,
];
/** Events of payments that change a balance the profile shows. */
const PAYMENTS_SUBJECTS: Subject[] = [SUBJECTS.purchaseCompleted, SUBJECTS.payoutCompleted];

const stampKey = (userId: string) => `omc:realtime:profile:${userId}`;
/** A version unread this long is forgotten; a client holding one then reads the profile once. */
const STAMP_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface ProfileStamps {
  /** The player's stamp now; unique (so the client reads) when Redis cannot say. */
  stamp(userId: string, round: number): Promise<string>;
  stop(): Promise<void>;
}

export function startProfileStamps(options: {
  nats: Nats;
  redis: Redis;
  log: Logger;
  consumed: LiveMetrics['consumed'];
}): ProfileStamps {
  const { redis } = options;
  const bump = async (data: unknown) => {
    const userId = (data as { userId?: unknown }).userId;
    if (typeof userId !== 'string') return;
    await redis.multi().incr(stampKey(userId)).pexpire(stampKey(userId), STAMP_TTL_MS).exec();
  };
  const consume = (stream: string, durable: string, subjects: Subject[]): Consumer =>
    startConsumer({
      nats: options.nats,
      stream,
      durable,
      subjects,
      log: options.log,
      handle: (event) => bump(event.data),
      onResult: (subject, outcome) => options.consumed.inc({ subject, outcome }),
    });
  const consumers = [
    consume(STREAMS.auth.name, 'realtime-profile-stamps', AUTH_SUBJECTS),
    consume(STREAMS.payments.name, 'realtime-profile-stamps', PAYMENTS_SUBJECTS),
  ];
  return {
    async stamp(userId, round) {
      const version = await redis.get(stampKey(userId)).catch(() => `unknown-${crypto.randomUUID()}`);
      return `${round}.${version ?? 0}`;
    },
    stop: async () => void (await Promise.all(consumers.map((c) => c.stop()))),
  };
}
