import { fileURLToPath } from 'node:url';
import { env, parseConfig, tracingEnvSchema, trustProxySetting } from '@omc/service-kit';
import { z } from 'zod';

const httpUrl = env.url(['http', 'https']);

const urlList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .refine((urls) => urls.length > 0, 'must list at least one URL')
  .refine(
    (urls) => urls.every((u) => httpUrl.safeParse(u).success),
    'must be http(s) URLs separated by commas',
  );

export const configSchema = z
  .object({
    /** The one public port. */
    GATEWAY_PORT: env.port(8080).optional(),
    /** Accepted too, for platforms that set PORT; GATEWAY_PORT wins. */
    PORT: env.port(8080).optional(),
    /**
     * Liveness (/healthz), readiness (/readyz) and metrics (/metrics) answer here only, for the kubelet
     * and Prometheus: not on the public port, not in the Service, not behind the ingress.
     */
    GATEWAY_INTERNAL_PORT: env.port(9080),
    /** The address the HTTP server listens on. */
    HOST: env.host(),
    /** Pino's level for the process's JSON log lines. */
    LOG_LEVEL: env.logLevel(),
    /** How long a stopping process lets requests in flight finish before it closes. */
    SHUTDOWN_GRACE_MS: env.int(10_000, 0, 120_000),
    /** Where the gateway proxies /api/user/* and the admin user routes. */
    AUTH_URL: httpUrl.default('http://127.0.0.1:3001'),
    /** Where the gateway proxies /api/game/* and GET /api/winners. */
    GAME_URL: httpUrl.default('http://127.0.0.1:3002'),
    /** Where the gateway proxies /api/payments/*, collects and the payment method. */
    PAYMENTS_URL: httpUrl.default('http://127.0.0.1:3003'),
    /** Realtime instances for /socket.io, separated by commas. */
    REALTIME_URLS: urlList.default(['http://127.0.0.1:3004']),
    /** Redis for the gateway's shared per-address request budget, with the gateway's own ACL user (redis://gateway:password@host:6379). */
    REDIS_URL: env.url(['redis', 'rediss']).default('redis://127.0.0.1:6379'),
    /** Requests per minute per client address under /api, shared by every gateway through Redis; 0 turns it off. */
    RATE_LIMIT_PER_IP: env.int(6000, 0),
    /** The built web app the gateway serves. */
    WEB_DIST: z
      .string()
      .min(1)
      .default(fileURLToPath(new URL('../../web/dist', import.meta.url))),
    /** The proxies in front (the ingress), exactly: addresses/CIDRs, loopback, or a hop count (service-kit). */
    TRUST_PROXY: trustProxySetting(),
    /** Websocket connections one client address may hold through this gateway; 0 turns the cap off (load tests). */
    WS_MAX_PER_IP: env.int(50, 0),
    /** Largest request body accepted; a larger one gets 413. */
    BODY_LIMIT_BYTES: env.int(64 * 1024, 1024, 10 * 1024 * 1024),
    /** How long an upstream may take to answer before the caller gets a 504. */
    UPSTREAM_TIMEOUT_MS: env.int(15_000, 100, 120_000),
    /**
     * How long a profile read waits for the game's and payments' parts (asked by the gateway beside
     * auth's); a part later than this is null in the answer, as when its owner is down.
     */
    PROFILE_PART_TIMEOUT_MS: env.int(800, 50, 30_000),
    /** The profile put together here from its three owners (true), or proxied to auth, which asks the other two (false). */
    PROFILE_IN_ONE_HOP: env.bool(true),
    /**
     * `/winners` is sent with the first page of winners drawn in it, read from the game at most this often
     * per gateway (a read older than this is refreshed in the background); 0 sends the page without it.
     */
    WINNERS_PAGE_TTL_MS: env.int(2_000, 0, 600_000),
    /** How long `/winners` waits for the game's list when the gateway has none at hand, before it is sent without it. */
    WINNERS_PAGE_WAIT_MS: env.int(250, 0, 5_000),
    /**
     * Clicks the gateway lets in flight to the game at once; the rest wait for their turn in a queue
     * (docs/performance.md, "When the crowd is larger than the machine"). 0 turns click admission off.
     */
    CLICK_MAX_IN_FLIGHT: env.int(128, 0, 100_000),
    /** Clicks waiting for their turn at most (the queue's memory bound); past it a click gets a 503 at once. */
    CLICK_MAX_WAITING: env.int(4096, 0, 1_000_000),
    /** The wait for a turn that a standing queue is cut back to (CoDel's target), in ms. */
    CLICK_TARGET_MS: env.int(50, 1, 10_000),
    /**
     * Clicks are shed (503) only once the click path has had no room for this long (CoDel's interval),
     * and then only those that waited past CLICK_TARGET_MS, in ms: a burst that drains within it is served whole.
     */
    CLICK_INTERVAL_MS: env.int(500, 10, 60_000),
    /**
     * Clients told to retry later that the gateway remembers (per replica): one that keeps clicking before
     * its Retry-After (more than a few times within it) gets a 429 at once. 0 turns this off.
     */
    CLICK_PENALTY_MAX_KEYS: env.int(100_000, 0, 10_000_000),
    /** The longest wait an early retry can earn, in seconds (it earns the Retry-After it ignored, from then). */
    CLICK_PENALTY_MAX_SECONDS: env.int(30, 1, 3600),
    /**
     * How long an early retry's 429 is held before it is sent, in ms (at most its Retry-After): a client
     * that resends the moment it is answered then sends once a second per connection, not thousands of
     * times. A client that waits as told never gets one. 0 answers at once.
     */
    CLICK_PENALTY_DELAY_MS: env.int(1000, 0, 10_000),
    /** The Braintree emulator in development: the payment form in the browser talks to it. */
    BRAINTREE_EMULATOR_URL: httpUrl.optional(),
    ...tracingEnvSchema.shape,
  })
  .transform(({ GATEWAY_PORT, PORT, ...rest }) => ({ ...rest, GATEWAY_PORT: GATEWAY_PORT ?? PORT ?? 8080 }))
  .superRefine((config, ctx) => {
    // 0 asks the system for a free port, so two zeros never collide.
    if (config.GATEWAY_INTERNAL_PORT !== 0 && config.GATEWAY_INTERNAL_PORT === config.GATEWAY_PORT)
      ctx.addIssue({
        code: 'custom',
        path: ['GATEWAY_INTERNAL_PORT'],
        message: `must differ from the public port GATEWAY_PORT (${config.GATEWAY_PORT})`,
      });
  });

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(source: NodeJS.ProcessEnv = process.env) {
  return parseConfig(configSchema as unknown as z.ZodObject, source) as Readonly<
    z.infer<typeof configSchema>
  >;
}
