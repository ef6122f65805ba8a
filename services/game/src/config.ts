import { baseEnvSchema, env, parseConfig, retentionEnvSchema, serviceKeysEnvSchema } from '@omc/service-kit';
import { z } from 'zod';

export interface MilestoneRule {
  at: number;
  freeClicks: number;
}

/** "10:100,50:500" -> [{ at: 10, freeClicks: 100 }, { at: 50, freeClicks: 500 }], sorted by `at`. */
export function parseMilestones(text: string): MilestoneRule[] | string {
  if (text.trim() === '') return [];
  const rules: MilestoneRule[] = [];
  for (const part of text.split(',')) {
    const match = /^\s*(\d{1,15})\s*:\s*(\d{1,15})\s*$/.exec(part);
    if (!match) return `"${part}" is not "clicks:reward" (e.g. 10:100,50:500)`;
    const at = Number(match[1]);
    const freeClicks = Number(match[2]);
    if (at < 1 || freeClicks < 1) return `"${part}": both numbers must be at least 1`;
    if (rules.some((r) => r.at === at)) return `milestone ${at} is given twice`;
    rules.push({ at, freeClicks });
  }
  return rules.sort((a, b) => a.at - b.at);
}

export const configSchema = baseEnvSchema
  .extend({
    ...retentionEnvSchema.shape,
    // The game's internal routes are called by auth and payments.
    ...serviceKeysEnvSchema.pick({
      SERVICE_PRIVATE_KEY: true,
      AUTH_SERVICE_PUBLIC_KEY: true,
      PAYMENTS_SERVICE_PUBLIC_KEY: true,
    }).shape,
    /** The game's HTTP port. */
    PORT: env.port(3002),
    /**
     * The routes only auth calls (the role change before updateRole answers) answer here, not on PORT:
     * a port of their own, so the NetworkPolicy admits auth alone to them. 0 asks for a free port (tests).
     */
    INTERNAL_PORT: env.port(3012),
    /** Clicks that end a round; the click reaching it wins the pot. */
    ROUND_TARGET: env.int(1_000_000, 1, 1_000_000_000_000),
    /** click:reward pairs: the Nth click of a round earns that many free clicks. */
    MILESTONES: z
      .string()
      .default('10:100,50:500')
      .transform((text, ctx) => {
        const parsed = parseMilestones(text);
        if (typeof parsed === 'string') {
          ctx.addIssue({ code: 'custom', message: parsed });
          return z.NEVER;
        }
        return parsed;
      }),
    /** Clicks granted to a new account. */
    SIGNUP_FREE_CLICKS: env.int(10, 0, 1_000_000_000),
    /**
     * Grant the sign-up clicks only once auth says the account's email is verified (against farms of
     * throwaway accounts); off, they are granted at registration as the original client expects.
     */
    SIGNUP_FREE_CLICKS_AFTER_VERIFICATION: env.bool(false),
    /** Clicks per second one user may make (a burst of the same size is allowed). */
    CLICK_RATE_PER_USER: env.int(20, 1, 1_000_000),
    /**
     * Clicks per second from one client address, shared by every account behind it, so a farm of
     * accounts on one host is held like one eager household; 0 turns it off (load tests from one host).
     */
    CLICK_RATE_PER_IP: env.int(100, 0, 1_000_000),
    /** Believe X-Forwarded-For from the nearest TRUST_PROXY_HOPS peers (the gateway), no further. */
    TRUST_PROXY_HOPS: env.int(1, 0, 10),
    /**
     * At most one click batch per this window per instance: a click after a quiet window goes at once,
     * clicks within a window share the next Redis call (0: only while a call is in flight).
     */
    CLICK_BATCH_WINDOW_MS: env.int(5, 0, 50),
    /**
     * Clicks in the engine (queued for their batch, or in one) at once per instance; the rest wait for
     * their turn (clicks/admission.ts; docs/performance.md, "When the crowd is larger than the machine").
     * 0 turns click admission off.
     */
    CLICK_QUEUE_IN_FLIGHT: env.int(256, 0, 1_000_000),
    /** Clicks waiting for their turn at most per instance; past it a click gets a 503 at once. */
    CLICK_QUEUE_MAX: env.int(2000, 0, 1_000_000),
    /** The wait for a turn that a standing queue is cut back to (CoDel's target), in ms. */
    CLICK_QUEUE_TARGET_MS: env.int(50, 1, 10_000),
    /**
     * Clicks are shed (503) only once the engine has had no room for this long (CoDel's interval), and
     * then only those that waited past CLICK_QUEUE_TARGET_MS, in ms: a burst that drains within it is served whole.
     */
    CLICK_QUEUE_INTERVAL_MS: env.int(500, 10, 60_000),
    /**
     * A Redis command without an answer after this long fails (a stalled Redis: clicks answer 503 with
     * Retry-After instead of hanging; the state is served from the last one read).
     */
    REDIS_COMMAND_TIMEOUT_MS: env.int(1000, 50, 60_000),
    /**
     * A read of the winners list waits this long on Postgres at most; past it (a stalled Postgres) the
     * pod answers with the last list it read, or 503 with Retry-After if it never read one.
     */
    WINNERS_READ_TIMEOUT_MS: env.int(1000, 50, 60_000),
    /**
     * The most journal entries Redis may hold that Postgres has not taken (a Postgres outage): past it,
     * clicks answer 503 with Retry-After instead of filling Redis until it refuses every write. One entry
     * is one click batch (at most 200 per second per instance) and weighs about 0.2-2 KB. 0: no bound.
     */
    JOURNAL_MAX_BACKLOG: env.int(100_000, 0, 100_000_000),
    /**
     * The click that closes a round waits this long at most for its win's Postgres write before it is
     * answered: written, it says `won: true`; refused (a rebuild reopened the round), 503 with Retry-After;
     * still under way, an accepted click without `won` (the win reaches the player by the round-won event).
     * Below the 2 s in which a click is answered while Postgres stalls (docs/reliability.md).
     */
    WIN_CONFIRM_TIMEOUT_MS: env.int(1000, 10, 60_000),
    /** How often the write-behind journal is flushed from Redis to Postgres. */
    JOURNAL_FLUSH_MS: env.int(100, 5, 600_000),
    /**
     * How often every instance compares Redis with what Postgres recorded (generation, journal position,
     * last won round) and rebuilds a Redis found behind: the bound on how long a Redis that came back older
     * (a restored copy, a lagging replica promoted) is played on.
     */
    FENCE_CHECK_MS: env.int(1000, 10, 600_000),
    /** How long a pod goes on trusting what it knows of ended sessions without hearing from the bus (NATS): past it, signed-in requests and sockets are refused (503) until the bus answers again. */
    ENDED_SESSIONS_BLIND_MS: env.int(30_000, 1000, 300_000),
    /**
     * game.state.v1 goes out at the wall clock's multiples of this, with every change since the last, so
     * each instance publishes at most once a period and every instance at the same moment. Realtime's
     * tick period (1000 / BROADCAST_HZ): each realtime pod sends a period's state on as it arrives.
     */
    STATE_PUBLISH_MS: env.int(100, 1, 10_000),
    /** Payments, asked on a schedule for completed purchases the game has not applied. */
    PAYMENTS_URL: env.url(['http', 'https']).default('http://127.0.0.1:3003'),
    /** How long the game waits for payments' answer in a reconciliation pass. */
    PAYMENTS_TIMEOUT_MS: env.int(5000, 100, 60_000),
    /**
     * How often completed purchases are compared with those applied, so a purchase whose event was lost
     * is credited within this (0: never; tests drive it themselves).
     */
    EVENT_RECONCILE_INTERVAL_MS: env.int(60_000, 0, 3_600_000),
    /** How far back each reconciliation pass looks. */
    EVENT_RECONCILE_LOOKBACK_HOURS: env.int(168, 1, 24 * 365),
  })
  .superRefine((config, ctx) => {
    for (const milestone of config.MILESTONES) {
      if (milestone.at >= config.ROUND_TARGET) {
        ctx.addIssue({
          code: 'custom',
          path: ['MILESTONES'],
          message: `milestone ${milestone.at} must be below ROUND_TARGET (${config.ROUND_TARGET})`,
        });
      }
    }
  });

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(source: NodeJS.ProcessEnv = process.env) {
  return parseConfig(configSchema, source);
}
