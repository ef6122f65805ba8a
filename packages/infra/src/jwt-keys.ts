// The token signing keys of a system: auth signs with the private one, every service checks with the
// public one. Kept in the system's folder when it is persistent (npm start), new for each run otherwise.
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface JwtKeys {
  publicKey: string;
  privateKey: string;
}

export function loadOrCreateKeys(dir: string, persistent: boolean): JwtKeys {
  const file = join(dir, 'jwt-keys.json');
  if (persistent && existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const keys = {
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, JSON.stringify(keys), { mode: 0o600 });
  return keys;
}
