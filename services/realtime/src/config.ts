import { hostname } from 'node:os';
import { baseEnvSchema, env, parseConfig, trustProxySetting } from '@omc/service-kit';
import { z } from 'zod';

// Realtime owns no tables: no DATABASE_URL.
export const configSchema = baseEnvSchema
  .omit({ DATABASE_URL: true })
  .extend({
    /** Realtime's HTTP and Socket.IO port. */
    PORT: env.port(3004),
    /** State broadcasts per second; fan-out cost follows this, not the click rate. */
    BROADCAST_HZ: env.int(10, 1, 60),
    /** Websocket connections one client address may hold across every instance (leases in Redis); 0 turns the cap off (load tests). */
    WS_MAX_PER_IP: env.int(50, 0),
    /** How long a socket's slot under WS_MAX_PER_IP outlives its instance (a crash): leases in Redis. */
    WS_LEASE_MS: env.int(30_000, 300, 600_000),
    /** Only these peers (the gateway, the ingress) are believed about the client's address in X-Forwarded-For. */
    TRUST_PROXY: trustProxySetting('loopback'),
    /** The connected-user count is sent again this often, for a listener attached after connecting. */
    USER_COUNT_RESEND_MS: env.int(5000, 100, 600_000),
    /** Names this instance's share of the connected-user count in Redis. */
    INSTANCE_NAME: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,100}$/, 'must be 1-100 letters, digits or . _ : -')
      .default(`${hostname()}-${process.pid}`),
    /**
     * On SIGTERM, the sockets are told to move and closed in slices over this window (docs/operations.md,
     * "Rolling out realtime"); the process exits when they are gone or it ends. At most SHUTDOWN_GRACE_MS - 2000.
     */
    DRAIN_MS: env.int(10_000, 0, 110_000),
    /** The whole graceful stop, the drain included, before the process is ended anyway. */
    SHUTDOWN_GRACE_MS: env.int(15_000, 0, 120_000),
    /** How long a pod goes on trusting what it knows of ended sessions without hearing from the bus (NATS): past it, signed-in requests and sockets are refused (503) until the bus answers again. */
    ENDED_SESSIONS_BLIND_MS: env.int(30_000, 1000, 300_000),
    /** The Socket.IO Redis adapter: `classic` pub/sub or Redis 7's `sharded` pub/sub (docs/decisions.md). */
    SOCKET_ADAPTER: z.enum(['classic', 'sharded']).default('classic'),
  })
  .refine((c) => c.DRAIN_MS <= c.SHUTDOWN_GRACE_MS - 2000, {
    path: ['DRAIN_MS'],
    message: 'must be at most SHUTDOWN_GRACE_MS - 2000, so the drain ends before the process is stopped',
  });

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(source: NodeJS.ProcessEnv = process.env) {
  return parseConfig(configSchema, source);
}
