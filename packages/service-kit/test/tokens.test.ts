// Key rotation: verifiers accept every key listed in JWT_PUBLIC_KEY, each token names its key in kid,
// and a token whose key is not listed (or that names no listed key) is refused.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  authenticate,
  createServer,
  createTokenVerifier,
  keyId,
  parsePublicKeys,
  registerTokens,
  requireRole,
  requireUser,
} from '../src/index.js';
import { keyPair } from './keys.js';

async function issuer(keys: { publicKey: string; privateKey: string }) {
  const app = createServer({ name: 'issuer', logger: false });
  await registerTokens(app, keys);
  await app.ready();
  return (claims: object) =>
    app.jwt.sign({ sub: randomUUID(), username: 'ana', role: 'standard', ...claims } as never);
}

async function verifier(publicKey: string) {
  const app = createServer({ name: 'verifier', logger: false });
  await registerTokens(app, { publicKey });
  app.get('/me', async (request) => ({ username: (await requireUser(request)).username }));
  await app.ready();
  return async (token: string) =>
    (await app.inject({ url: '/me', headers: { authorization: `Bearer ${token}` } })).statusCode;
}

describe('access tokens across a key rotation', () => {
  const oldKeys = keyPair();
  const newKeys = keyPair();

  it('names its signing key in the token header', async () => {
    const token = await (await issuer(oldKeys))({});
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString());
    expect(header).toMatchObject({ alg: 'EdDSA', kid: keyId(oldKeys.publicKey) });
  });

  it('accepts tokens of both keys while both are listed, and only the listed ones after', async () => {
    const oldToken = await (await issuer(oldKeys))({});
    const newToken = await (
      await issuer({ ...newKeys, publicKey: `${newKeys.publicKey}\n${oldKeys.publicKey}` })
    )({});
    expect(parsePublicKeys(`${newKeys.publicKey}\n${oldKeys.publicKey}`)).toHaveLength(2);

    const during = await verifier(`${newKeys.publicKey}\n${oldKeys.publicKey}`);
    expect(await during(oldToken)).toBe(200);
    expect(await during(newToken)).toBe(200);

    const after = await verifier(newKeys.publicKey);
    expect(await after(newToken)).toBe(200);
    expect(await after(oldToken)).toBe(401);
  });

  it('refuses a token signed by an unlisted key even when it claims a listed kid', async () => {
    const stranger = keyPair();
    const forged = await (await issuer(stranger))({});
    const [, payload, signature] = forged.split('.');
    const header = Buffer.from(
      JSON.stringify({ alg: 'EdDSA', typ: 'JWT', kid: keyId(oldKeys.publicKey) }),
    ).toString('base64url');
    const check = await verifier(oldKeys.publicKey);
    expect(await check(`${header}.${payload}.${signature}`)).toBe(401);
    expect(await check(forged)).toBe(401);
  });
});

describe('verified tokens kept for the next request', () => {
  it('accepts a token again, and still refuses a tampered copy, a foreign key and the token once expired', async () => {
    const keys = keyPair();
    const status = await verifier(keys.publicKey);
    const app = createServer({ name: 'short-issuer', logger: false });
    await registerTokens(app, keys);
    await app.ready();
    const token = app.jwt.sign({ sub: randomUUID(), username: 'ana', role: 'standard' } as never, {
      expiresIn: '3s',
    });
    const { exp } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number };
    expect(await status(token)).toBe(200);
    expect(await status(token)).toBe(200);

    // Another payload under the same signature: a different token, checked (and refused) on its own.
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { role: string };
    const forged = [
      header,
      Buffer.from(JSON.stringify({ ...claims, role: 'admin' })).toString('base64url'),
      signature,
    ].join('.');
    expect(await status(forged)).toBe(401);
    expect(await status(forged)).toBe(401);
    expect(await status((await issuer(keyPair()))({}))).toBe(401);

    // The kept verification ends with the token's own expiry.
    await new Promise((r) => setTimeout(r, (exp + 1) * 1000 - Date.now()));
    expect(await status(token)).toBe(401);
  });
});

describe('tokens verified outside a request (a websocket handshake)', () => {
  it('accepts the keys listed, picks the key by kid during a rotation, and refuses the rest', async () => {
    const oldKeys = keyPair();
    const newKeys = keyPair();
    const verify = createTokenVerifier(`${newKeys.publicKey}\n${oldKeys.publicKey}`);
    const oldToken = await (await issuer(oldKeys))({ username: 'old' });
    const newToken = await (await issuer(newKeys))({ username: 'new' });
    expect((await verify(oldToken)).username).toBe('old');
    expect((await verify(newToken)).username).toBe('new');
    await expect(verify((await issuer(keyPair()))({}))).rejects.toMatchObject({
      statusCode: 401,
      message: 'Invalid token',
    });
    await expect(verify('not.a.token')).rejects.toMatchObject({ statusCode: 401 });
    // Issued 16 minutes ago: its 15 minutes are over.
    const expired = await (await issuer(oldKeys))({ iat: Math.floor(Date.now() / 1000) - 16 * 60 });
    await expect(verify(expired)).rejects.toMatchObject({ statusCode: 401, message: 'Token expired' });
  });
});

describe('who may call, declared once per route tree', () => {
  it('refuses a guest with 401 and a standard user of an admin route with 403, before the handler runs', async () => {
    const keys = keyPair();
    const sign = await issuer(keys);
    const app = createServer({ name: 'guarded', logger: false });
    await registerTokens(app, { publicKey: keys.publicKey });
    let reached = 0;
    await app.register(async (admin) => {
      admin.addHook('onRequest', authenticate);
      admin.addHook('onRequest', requireRole('admin'));
      admin.get('/admin', async (request) => {
        reached += 1;
        return { username: request.user.username };
      });
    });
    await app.ready();
    const call = async (token?: string) =>
      app.inject({ url: '/admin', headers: token ? { authorization: `Bearer ${token}` } : {} });
    expect((await call()).statusCode).toBe(401);
    expect((await call(await sign({ role: 'standard' }))).statusCode).toBe(403);
    const ok = await call(await sign({ role: 'admin', username: 'root' }));
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ username: 'root' });
    expect(reached).toBe(1);
  });
});
