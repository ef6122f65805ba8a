// The keys of a system: auth signs tokens with the JWT private key, every service checks them with the
// public one; and each service that makes or answers internal calls has a key of its own
// (SERVICE_PRIVATE_KEY; the others hold its public key). Kept in the system's folder when it is
// persistent (npm start), new for each run otherwise.
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeployableName } from './deployables.js';

export interface KeyPair {
  publicKey: string;
  privateKey: string;
}
export type JwtKeys = KeyPair;

/** The services that make and answer internal calls, each with a key of its own. */
export type CallingService = 'auth' | 'game' | 'payments';
const CALLING_SERVICES: readonly CallingService[] = ['auth', 'game', 'payments'];
export type ServiceKeys = Record<CallingService, KeyPair>;

function newKeyPair(): KeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** Keys kept in `dir` when persistent: `name` for the file, `make` for new ones. */
function loadOrCreate<T>(dir: string, persistent: boolean, name: string, make: () => T): T {
  const file = join(dir, name);
  if (persistent && existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as T;
  const keys = make();
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, JSON.stringify(keys), { mode: 0o600 });
  return keys;
}

export function loadOrCreateKeys(dir: string, persistent: boolean): JwtKeys {
  return loadOrCreate(dir, persistent, 'jwt-keys.json', newKeyPair);
}

export function loadOrCreateServiceKeys(dir: string, persistent: boolean): ServiceKeys {
  return loadOrCreate(
    dir,
    persistent,
    'service-keys.json',
    () => Object.fromEntries(CALLING_SERVICES.map((s) => [s, newKeyPair()])) as ServiceKeys,
  );
}

/** The environment of a service's internal-call keys: its own private key, the others' public keys. */
export function serviceKeyEnv(keys: ServiceKeys, name: DeployableName): NodeJS.ProcessEnv {
  if (!CALLING_SERVICES.includes(name as CallingService)) return {};
  return {
    SERVICE_PRIVATE_KEY: keys[name as CallingService].privateKey,
    AUTH_SERVICE_PUBLIC_KEY: keys.auth.publicKey,
    GAME_SERVICE_PUBLIC_KEY: keys.game.publicKey,
    PAYMENTS_SERVICE_PUBLIC_KEY: keys.payments.publicKey,
  };
}
