import { hostname } from 'node:os';
import { baseEnvSchema, env, parseConfig } from '@omc/service-kit';
import { z } from 'zod';

// Realtime owns no tables: no DATABASE_URL.
export const configSchema = baseEnvSchema.omit({ DATABASE_URL: true }).extend({
  PORT: env.port(3004),
  /** State broadcasts per second; fan-out cost follows this, not the click rate. */
  BROADCAST_HZ: env.int(10, 1, 60),
  /**
   * The connected-user count is sent again this often besides on connect and on change, so a client that
   * attached its listener a moment late does not show 0 players until someone joins or leaves.
   */
  USER_COUNT_REPEAT_MS: env.int(5000, 500, 600_000),
  /** Names this instance's share of the connected-user count in Redis. */
  INSTANCE_NAME: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,100}$/, 'must be 1-100 letters, digits or . _ : -')
    .default(`${hostname()}-${process.pid}`),
});

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(source: NodeJS.ProcessEnv = process.env) {
  return parseConfig(configSchema, source);
}
