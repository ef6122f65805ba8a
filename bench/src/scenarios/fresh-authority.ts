// The cost of reading authority fresh on an admin or money request: service-kit's freshAuthority hook
// asks auth's GET /internal/account (the caller's token forwarded, payments' service credential beside
// it), as every admin and money route of payments does. Two routes of one in-process server differ only
// by the hook: both verify the token, one also asks the bench system's auth. Timed in alternating rounds,
// one request at a time; the figure is the ratio to the route without the hook, measured in the same run.
// Then the click path: auth's count of /internal/account requests before and after a run of clicks (0:
// a click never asks auth).
import { performance } from 'node:perf_hooks';
import { INTERNAL_ACCOUNT_PATH, InternalAccount } from '@omc/contracts';
import {
  authenticate,
  callerOf,
  forwardedHeaders,
  freshAuthority,
  registerTokens,
  ServiceCredentials,
} from '@omc/service-kit';
import Fastify from 'fastify';
import type { BenchSystem } from '../bench-system.js';

export interface FreshAuthorityOptions {
  /** Requests of each kind, over all rounds. */
  requests: number;
  rounds: number;
  /** Clicks sent while auth's /internal/account count is watched. */
  clicks: number;
}

export interface FreshAuthorityResult {
  requestsEach: number;
  rounds: number;
  /** Per request: the token verified only, and the token verified plus auth's current account. */
  withoutCheckMicros: number;
  withCheckMicros: number;
  addedMicros: number;
  ratio: number;
  clicks: number;
  /** Requests auth served on /internal/account while those clicks ran (must be 0). */
  authCallsDuringClicks: number;
}

/** Auth's count of served requests on one route, from its /metrics. */
async function servedOn(metricsUrl: string, route: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  let total = 0;
  for (const line of text.split('\n'))
    if (line.includes('_count{') && line.includes(`route="${route}"`)) total += Number(line.split(' ').pop());
  return total;
}

async function time(url: string, token: string, n: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const answer = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}`);
    await answer.arrayBuffer();
  }
  return ((performance.now() - started) * 1000) / n;
}

export async function measureFreshAuthority(
  bs: BenchSystem,
  options: FreshAuthorityOptions,
  log: (line: string) => void,
): Promise<FreshAuthorityResult> {
  const { system } = bs;
  const authUrl = system.urls.auth!;
  const login = await fetch(`${bs.gatewayUrl}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ emailOrUsername: system.admin.username, password: system.admin.password }),
  });
  const { token } = (await login.json()) as { token: string };

  const credentials = new ServiceCredentials('payments', {
    privateKey: system.serviceKeys.payments.privateKey,
    callerKeys: {},
  });
  // As payments asks (services/payments/src/users/account-check.ts), less its error wording.
  const lookup = async (request: Parameters<typeof callerOf>[0]) => {
    const response = await fetch(`${authUrl}${INTERNAL_ACCOUNT_PATH}`, {
      headers: { ...forwardedHeaders(callerOf(request)), ...credentials.headersFor('auth') },
    });
    return InternalAccount.parse(await response.json());
  };
  const app = Fastify({ logger: false });
  await registerTokens(app, { publicKey: system.keys.publicKey });
  app.addHook('onRequest', authenticate);
  app.get('/plain', async () => ({ ok: true }));
  app.get('/fresh', { onRequest: freshAuthority(lookup, { role: 'admin' }) }, async () => ({ ok: true }));
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const warm = Math.min(500, Math.ceil(options.requests / 5));
    await time(`${base}/plain`, token, warm);
    await time(`${base}/fresh`, token, warm);
    const per = Math.max(1, Math.floor(options.requests / options.rounds));
    let without = 0;
    let withCheck = 0;
    for (let round = 0; round < options.rounds; round++) {
      without += await time(`${base}/plain`, token, per);
      withCheck += await time(`${base}/fresh`, token, per);
    }
    without /= options.rounds;
    withCheck /= options.rounds;

    // The click path: clicks by a load user while auth's /internal/account count is watched.
    const user = bs.users[0];
    if (!user) throw new Error('the bench system has no load user');
    const metricsUrl = `${system.internalUrls.auth}/metrics`;
    const before = await servedOn(metricsUrl, INTERNAL_ACCOUNT_PATH);
    for (let i = 0; i < options.clicks; i++) {
      const click = await fetch(`${bs.gatewayUrl}/api/game/click`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.token}` },
      });
      await click.arrayBuffer();
    }
    const authCallsDuringClicks = (await servedOn(metricsUrl, INTERNAL_ACCOUNT_PATH)) - before;

    const result: FreshAuthorityResult = {
      requestsEach: per * options.rounds,
      rounds: options.rounds,
      withoutCheckMicros: without,
      withCheckMicros: withCheck,
      addedMicros: withCheck - without,
      ratio: withCheck / without,
      clicks: options.clicks,
      authCallsDuringClicks,
    };
    log(
      `[bench] fresh authority: ${result.requestsEach} requests each in ${result.rounds} alternating rounds: ` +
        `token only ${without.toFixed(0)} µs, with auth's current account ${withCheck.toFixed(0)} µs per request ` +
        `(+${result.addedMicros.toFixed(0)} µs, ratio ${result.ratio.toFixed(2)}); ` +
        `${options.clicks} clicks asked auth ${authCallsDuringClicks} times`,
    );
    return result;
  } finally {
    await app.close();
  }
}
