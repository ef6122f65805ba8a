// Configuration is read from the environment once, validated with zod, and frozen. A bad value stops
// the service at start with every problem listed by variable name.
import { z } from 'zod';
import { tracingEnvSchema } from './tracing-settings.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export function parseConfig<S extends z.ZodObject>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): Readonly<z.infer<S>> {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`),
    );
  }
  return Object.freeze(result.data);
}

/** Common pieces of every service's environment. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  host: () => z.string().default('0.0.0.0'),
  url: (protocols: string[]) =>
    z.string().refine(
      (value) => {
        try {
          return protocols.includes(new URL(value).protocol.replace(':', ''));
        } catch {
          return false;
        }
      },
      `must be a URL (${protocols.join(', ')})`,
    ),
  int: (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
    z.coerce.number().int().min(min).max(max).default(fallback),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** A PEM key given inline (newlines may be written as \n). */
  pem: (kind: 'PUBLIC' | 'PRIVATE') =>
    z
      .string()
      .transform((v) => v.replace(/\\n/g, '\n').trim())
      .refine((v) => v.includes(`-----BEGIN ${kind} KEY-----`), `must be a PEM ${kind.toLowerCase()} key`),
};

export const baseEnvSchema = z.object({
  /** The address the HTTP server listens on. */
  HOST: env.host(),
  /** Pino's level for the process's JSON log lines. */
  LOG_LEVEL: env.logLevel(),
  /**
   * A second listener that serves /metrics alone (for Prometheus; the main port then answers it 404).
   * 0: none, and /metrics is served on the main port.
   */
  METRICS_PORT: env.port(0),
  /** The service's own Postgres database (postgres://user:pass@host:5432/name). */
  DATABASE_URL: env.url(['postgres', 'postgresql']),
  /** Redis (redis://, or rediss:// for TLS) with the service's own ACL user: redis://user:password@host:6379 (least privilege in Redis). */
  REDIS_URL: env.url(['redis', 'rediss']),
  /** The service's NATS user travels in the URL: nats://user:password@host:4222 (least privilege on the bus). */
  NATS_URL: z.string().min(1, 'must be a NATS URL, or several separated by commas'),
  /** Copies JetStream keeps of each stream the service owns: 1 in development, 3 in production. */
  NATS_STREAM_REPLICAS: z.coerce
    .number()
    .int()
    .refine((n) => [1, 3, 5].includes(n), 'must be 1, 3 or 5')
    .default(1),
  /** PEM of auth's Ed25519 public key, to verify access tokens; may hold several keys during a rotation. */
  JWT_PUBLIC_KEY: env.pem('PUBLIC'),
  /** How long a stopping process lets requests in flight finish before it closes. */
  SHUTDOWN_GRACE_MS: env.int(10_000, 0, 120_000),
  /**
   * How long JetStream waits for a consumer's acknowledgement before it gives the event to another
   * replica: the bound on how late an event held by a replica that died is handled.
   */
  EVENT_ACK_WAIT_MS: env.int(30_000, 1000, 600_000),
  ...tracingEnvSchema.shape,
});

/**
 * The keys of internal calls (service-credential.ts): a service's own private key, and the public key of
 * each service that calls it. A service picks its callers' keys from here.
 */
export const serviceKeysEnvSchema = z.object({
  /** PEM of this service's own Ed25519 private key: it signs the credential of every internal call it makes. */
  SERVICE_PRIVATE_KEY: env.pem('PRIVATE'),
  /** PEM of auth's service public key (its SERVICE_PRIVATE_KEY's), to verify auth's internal calls. */
  AUTH_SERVICE_PUBLIC_KEY: env.pem('PUBLIC'),
  /** PEM of the game's service public key, to verify the game's internal calls. */
  GAME_SERVICE_PUBLIC_KEY: env.pem('PUBLIC'),
  /** PEM of payments' service public key, to verify payments' internal calls. */
  PAYMENTS_SERVICE_PUBLIC_KEY: env.pem('PUBLIC'),
});

/** What the migration CLI needs: the database alone, so an operator can run it with no other secret. */
export const migrateEnvSchema = z.object({ DATABASE_URL: env.url(['postgres', 'postgresql']) });

/** The migration CLI's configuration (service-kit's migrationCli): DATABASE_URL only. */
export function loadMigrateConfig(source: NodeJS.ProcessEnv = process.env) {
  return parseConfig(migrateEnvSchema, source);
}
