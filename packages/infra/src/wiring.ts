// The environment that wires the processes of a system together: where the servers, the other
// services and the emulators answer, the token keys, the bootstrap admin, and each process's own port,
// database, NATS user and Redis user.
import { join } from 'node:path';
import { isRedisUser } from '@omc/contracts';
import type { Addresses } from './addresses.js';
import { isBusUser, type Deployable, type DeployableName } from './deployables.js';
import type { Infra } from './infra.js';
import { serviceKeyEnv, type JwtKeys, type ServiceKeys } from './jwt-keys.js';

export interface Admin {
  username: string;
  email: string;
  password: string;
}

/** What every process is given: the addresses of everything else. */
export function systemWiring(given: {
  root: string;
  infra: Infra;
  keys: JwtKeys;
  admin: Admin;
  addresses: Addresses;
  url: (name: string) => string;
}): NodeJS.ProcessEnv {
  const { keys, admin, addresses, url } = given;
  return {
    JWT_PUBLIC_KEY: keys.publicKey,
    AUTH_URL: url('auth'),
    GAME_URL: url('game'),
    ...(addresses.ports.has('game:calls') ? { GAME_INTERNAL_URL: url('game:calls') } : {}),
    PAYMENTS_URL: url('payments'),
    REALTIME_URLS: addresses.realtimeUrls.join(','),
    BRAINTREE_EMULATOR_URL: url('emulators'),
    PAYPAL_API_URL: url('emulators'),
    WEB_DIST: join(given.root, 'web', 'dist'),
    BOOTSTRAP_ADMIN_USERNAME: admin.username,
    BOOTSTRAP_ADMIN_EMAIL: admin.email,
    BOOTSTRAP_ADMIN_PASSWORD: admin.password,
    HOST: '127.0.0.1',
  };
}

/** One process's environment: the wiring, the caller's environment over it, then its own settings. */
export function processEnv(given: {
  deployable: Deployable;
  name: string;
  wiring: NodeJS.ProcessEnv;
  baseEnv: NodeJS.ProcessEnv;
  envFor?: Partial<Record<DeployableName, NodeJS.ProcessEnv>>;
  infra: Infra;
  keys: JwtKeys;
  serviceKeys: ServiceKeys;
  databaseUrl: string | undefined;
  ports: Map<string, number>;
}): NodeJS.ProcessEnv {
  const { deployable: d, name, ports } = given;
  return {
    ...given.wiring,
    ...(d.name === 'auth' ? { JWT_PRIVATE_KEY: given.keys.privateKey } : {}),
    ...serviceKeyEnv(given.serviceKeys, d.name),
    ...given.baseEnv,
    // The servers' URLs as resolved above, and each service's own database. Each service that keeps
    // something in Redis as its own Redis user (its own keys and commands); payments and the emulators
    // get no Redis at all.
    REDIS_URL: isRedisUser(d.name) ? given.infra.redisUrlFor(d.name) : undefined,
    // Each service as its own NATS user, with its own subjects only; the gateway and the
    // emulators use no NATS and get no credentials.
    ...(isBusUser(d.name) ? { NATS_URL: given.infra.natsUrlFor(d.name) } : {}),
    DATABASE_URL: given.databaseUrl,
    ...given.envFor?.[d.name],
    PORT: String(ports.get(name)),
    ...(d.name === 'gateway'
      ? {
          GATEWAY_PORT: String(ports.get(name)),
          GATEWAY_INTERNAL_PORT: String(ports.get(`${name}:internal`)),
        }
      : {}),
    ...(d.callsPort ? { INTERNAL_PORT: String(ports.get(`${name}:calls`)) } : {}),
    INSTANCE_NAME: name,
  };
}
