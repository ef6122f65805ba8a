import { hostname } from 'node:os';
import { baseEnvSchema, env, parseConfig } from '@omc/service-kit';
import { isIP } from 'node:net';
import { z } from 'zod';
import { NAMED_RANGES } from './live/connection-caps.js';

/**
 * Proxies whose X-Forwarded-For is believed, in the gateway's words: false, true (any peer), or
 * addresses/CIDRs and the names loopback, linklocal, uniquelocal separated by commas.
 */
const trustedProxies = z
  .string()
  .default('loopback')
  .transform((value, ctx): string[] => {
    const v = value.trim();
    if (['false', '0', 'no', ''].includes(v)) return [];
    if (['true', 'yes'].includes(v)) return ['0.0.0.0/0', '::/0'];
    const list = v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const valid = (s: string) => {
      if (s in NAMED_RANGES) return true;
      const [address, bits, ...rest] = s.split('/');
      if (rest.length > 0 || !address || isIP(address) === 0) return false;
      return (
        bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (isIP(address) === 4 ? 32 : 128))
      );
    };
    if (list.every(valid)) return list;
    ctx.addIssue({
      code: 'custom',
      message: 'must be true, false, or addresses/CIDRs/loopback/linklocal/uniquelocal separated by commas',
    });
    return z.NEVER;
  });

// Realtime owns no tables: no DATABASE_URL.
export const configSchema = baseEnvSchema.omit({ DATABASE_URL: true }).extend({
  /** Realtime's HTTP and Socket.IO port. */
  PORT: env.port(3004),
  /** State broadcasts per second; fan-out cost follows this, not the click rate. */
  BROADCAST_HZ: env.int(10, 1, 60),
  /** Websocket connections one client address may hold on this instance; 0 turns the cap off (load tests). */
  WS_MAX_PER_IP: env.int(50, 0),
  /** Only these peers (the gateway, the ingress) are believed about the client's address in X-Forwarded-For. */
  TRUST_PROXY: trustedProxies,
  /** The connected-user count is sent again this often, for a listener attached after connecting. */
  USER_COUNT_RESEND_MS: env.int(5000, 100, 600_000),
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
