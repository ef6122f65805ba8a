// Internal callers: a route on /internal/* answers only the services its catalogue entry lists, each
// proving itself with a short-lived credential signed by its own key; a route the catalogue does not
// list cannot be registered.
import { INTERNAL_WINS_PATH, SERVICE_CREDENTIAL_HEADER } from '@omc/contracts';
import { describe, expect, it } from 'vitest';
import { createServer, registerInternalCallers, ServiceCredentials } from '../src/index.js';
import { keyPair } from './keys.js';

const keys = { auth: keyPair(), game: keyPair(), payments: keyPair() };
const signer = (service: 'auth' | 'game' | 'payments', now?: () => number) =>
  new ServiceCredentials(service, { privateKey: keys[service].privateKey, callerKeys: {} }, now);

/** The game as it checks its callers (auth and payments), with the internal wins route. */
async function game() {
  const credentials = new ServiceCredentials('game', {
    privateKey: keys.game.privateKey,
    callerKeys: { auth: keys.auth.publicKey, payments: keys.payments.publicKey },
  });
  const app = createServer({ name: 'game', logger: false });
  registerInternalCallers(app, credentials);
  app.get(INTERNAL_WINS_PATH, async (request) => ({ caller: request.callerService }));
  await app.ready();
  return app;
}

describe('internal callers', () => {
  it('lets a listed caller in, and names it', async () => {
    const app = await game();
    const answer = await app.inject({
      url: INTERNAL_WINS_PATH,
      headers: signer('payments').headersFor('game'),
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ caller: 'payments' });
  });

  it('answers 401 to no credential, a forged one, one for another callee and an expired one', async () => {
    const app = await game();
    const status = async (headers: Record<string, string>) =>
      (await app.inject({ url: INTERNAL_WINS_PATH, headers })).statusCode;
    expect(await status({})).toBe(401);
    const forged = new ServiceCredentials('payments', { privateKey: keyPair().privateKey, callerKeys: {} });
    expect(await status(forged.headersFor('game'))).toBe(401);
    expect(await status(signer('payments').headersFor('auth'))).toBe(401);
    const old = signer('payments', () => Date.now() - 120_000);
    expect(await status(old.headersFor('game'))).toBe(401);
    expect(await status({ [SERVICE_CREDENTIAL_HEADER]: 'not.a.credential' })).toBe(401);
  });

  it('answers 403 to a valid credential of a caller the route does not list', async () => {
    const app = await game();
    // Auth is a caller of the game, but not of this route; the game is no caller of itself.
    for (const caller of ['auth', 'game'] as const) {
      const answer = await app.inject({
        url: INTERNAL_WINS_PATH,
        headers: signer(caller).headersFor('game'),
      });
      expect(answer.statusCode, caller).toBe(403);
    }
  });

  it('refuses to register an internal route the catalogue does not list, or without credentials', async () => {
    const listed = createServer({ name: 'game', logger: false });
    registerInternalCallers(listed, signer('game'));
    expect(() => listed.get('/internal/anything', async () => ({}))).toThrow(/internal route catalogue/);
    const bare = createServer({ name: 'game', logger: false });
    registerInternalCallers(bare, undefined);
    expect(() => bare.get(INTERNAL_WINS_PATH, async () => ({}))).toThrow(/credentials/);
  });

  it('signs once per half a credential life', () => {
    let now = Date.now();
    const credentials = signer('auth', () => now);
    const first = credentials.credentialFor('game');
    now += 20_000;
    expect(credentials.credentialFor('game')).toBe(first);
    now += 15_000;
    expect(credentials.credentialFor('game')).not.toBe(first);
  });
});
