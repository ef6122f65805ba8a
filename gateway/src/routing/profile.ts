// GET /api/user/profile in one hop: the gateway asks auth (the account), the game (click balances) and
// payments (winnings, payout email, house balance) at once, each with the caller's own token, and puts
// the answer together; before, auth asked the other two after its own turn, a second hop on every read.
// Each part comes from its owner, as it did. Auth's answer decides: anything but a 200 from it (a 401,
// a suspended account) is passed on as it came, and auth away is the 503 the proxy gives. Game or
// payments away, slow (PROFILE_PART_TIMEOUT_MS) or answering off contract: their fields are null and
// the profile answers with the rest, as auth's composition did.
import {
  ERROR_CODE,
  errorBody,
  GameProfile,
  PaymentsProfile,
  PROFILE_PARTS_ACCOUNT,
  PROFILE_PARTS_HEADER,
} from '@omc/contracts';
import type { Metrics } from '@omc/service-kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher, Pool } from 'undici';
import type { Config } from '../config.js';
import { upstreamFailure } from './api-proxy.js';
import { callerHeaders, profilePool, read, readPart, type Part } from './profile-parts.js';

export const PROFILE_PATH = '/api/user/profile';

type Answer = { response: Dispatcher.ResponseData; text: string };
type Account = Answer | { error: Error };

export async function profileRoute(app: FastifyInstance, config: Config, metrics: Metrics): Promise<void> {
  const auth = profilePool(config.AUTH_URL, config);
  const game = profilePool(config.GAME_URL, config);
  const payments = profilePool(config.PAYMENTS_URL, config);
  app.addHook('onClose', async () => {
    await Promise.all([auth.close(), game.close(), payments.close()]);
  });
  const addParts = partsJoiner(metrics);

  app.get(PROFILE_PATH, async (request, reply) => {
    const [account, gamePart, paymentsPart] = await Promise.all([
      readAccount(auth, request),
      readPart(game, '/api/game/profile', GameProfile, request, config.PROFILE_PART_TIMEOUT_MS),
      readPart(payments, '/api/payments/profile', PaymentsProfile, request, config.PROFILE_PART_TIMEOUT_MS),
    ]);
    if ('error' in account) return sendAuthAway(request, reply, account.error);
    if (account.response.statusCode !== 200) return passOnRefusal(reply, account);
    const profile = JSON.parse(account.text) as Record<string, unknown>;
    addParts(profile, request, [
      ['game', gamePart],
      ['payments', paymentsPart],
    ]);
    return reply.code(200).header('cache-control', 'no-store').type('application/json').send(profile);
  });
}

/** Auth's answer for the account, read whole, with the caller's cookie; or why there is none. */
function readAccount(auth: Pool, request: FastifyRequest): Promise<Account> {
  return read(
    auth,
    request.url,
    callerHeaders(request, {
      [PROFILE_PARTS_HEADER]: PROFILE_PARTS_ACCOUNT,
      ...(request.headers.cookie ? { cookie: request.headers.cookie } : {}),
    }),
  ).then(
    async (response) => ({ response, text: await response.body.text() }),
    (error: Error) => ({ error }),
  );
}

/** Auth away: the status and message the proxy gives. */
function sendAuthAway(request: FastifyRequest, reply: FastifyReply, error: Error): FastifyReply {
  const { status, message } = upstreamFailure('auth', error as never);
  request.log.warn({ err: error, service: 'auth', status }, 'upstream failed');
  if (status === 503) void reply.header('retry-after', '2');
  return reply
    .code(status)
    .type('application/json')
    .send(errorBody(message, { code: ERROR_CODE.UPSTREAM_UNAVAILABLE, requestId: request.id }));
}

/** Auth's refusal as it gave it (its status, body and Retry-After). */
function passOnRefusal(reply: FastifyReply, { response, text }: Answer): FastifyReply {
  const contentType = response.headers['content-type'];
  const retryAfter = response.headers['retry-after'];
  if (typeof retryAfter === 'string') void reply.header('retry-after', retryAfter);
  return reply
    .code(response.statusCode)
    .type(typeof contentType === 'string' ? contentType : 'application/json')
    .send(text);
}

/** Each part its owner gave joins the profile; a missing one is counted and logged, its fields left null. */
function partsJoiner(metrics: Metrics) {
  const partsMissing = metrics.counter(
    'gateway_profile_parts_missing_total',
    'Profile reads answered without a part because its owner failed to give it',
    ['service'],
  );
  return (
    profile: Record<string, unknown>,
    request: FastifyRequest,
    parts: [service: 'game' | 'payments', got: Part<object>][],
  ): void => {
    for (const [service, got] of parts) {
      if (got.ok) Object.assign(profile, got.data);
      else {
        partsMissing.inc({ service });
        request.log.warn({ reason: got.reason }, `${service} profile unavailable`);
      }
    }
  };
}
