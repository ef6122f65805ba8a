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
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Pool } from 'undici';
import type { z } from 'zod';
import type { Config } from '../config.js';
import { upstreamFailure } from './api-proxy.js';

export const PROFILE_PATH = '/api/user/profile';

type Part<T> = { ok: true; data: T } | { ok: false; reason: string };

export async function profileRoute(app: FastifyInstance, config: Config, metrics: Metrics): Promise<void> {
  const pool = (url: string) =>
    new Pool(url, {
      connections: 64,
      keepAliveTimeout: 30_000,
      connect: { timeout: 2_000 },
      headersTimeout: config.UPSTREAM_TIMEOUT_MS,
      bodyTimeout: config.UPSTREAM_TIMEOUT_MS,
    });
  const auth = pool(config.AUTH_URL);
  const game = pool(config.GAME_URL);
  const payments = pool(config.PAYMENTS_URL);
  app.addHook('onClose', async () => {
    await Promise.all([auth.close(), game.close(), payments.close()]);
  });
  const partsMissing = metrics.counter(
    'gateway_profile_parts_missing_total',
    'Profile reads answered without a part because its owner failed to give it',
    ['service'],
  );

  const headersFor = (request: FastifyRequest, extra: Record<string, string> = {}) => {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'x-request-id': request.id,
      'x-forwarded-for': request.ip,
      'x-forwarded-proto': request.protocol,
      'x-forwarded-host': request.host,
      ...extra,
    };
    if (request.headers.authorization) headers.authorization = request.headers.authorization;
    if (request.headers['accept-language']) headers['accept-language'] = request.headers['accept-language'];
    // With tracing on, the SDK's undici instrumentation adds our trace context.
    return headers;
  };

  /** A read, sent once more when its kept-alive connection closed unanswered (a replica lost). */
  const read = async (
    upstream: Pool,
    path: string,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ) => {
    try {
      return await upstream.request({ path, method: 'GET', headers, signal });
    } catch (error) {
      if ((error as { code?: string }).code !== 'UND_ERR_SOCKET') throw error;
      return upstream.request({ path, method: 'GET', headers, signal });
    }
  };

  const part = async <S extends z.ZodType>(
    upstream: Pool,
    path: string,
    schema: S,
    request: FastifyRequest,
  ): Promise<Part<z.infer<S>>> => {
    try {
      const signal = AbortSignal.timeout(config.PROFILE_PART_TIMEOUT_MS);
      const response = await read(upstream, path, headersFor(request), signal);
      if (response.statusCode !== 200) {
        await response.body.dump();
        return { ok: false, reason: `status ${response.statusCode}` };
      }
      const parsed = schema.safeParse(await response.body.json());
      return parsed.success
        ? { ok: true, data: parsed.data }
        : { ok: false, reason: 'answer does not match the contract' };
    } catch (error) {
      const e = error as Error;
      return {
        ok: false,
        reason: e.name === 'TimeoutError' || e.name === 'AbortError' ? 'timed out' : e.message,
      };
    }
  };

  app.get(PROFILE_PATH, async (request, reply) => {
    const [account, gamePart, paymentsPart] = await Promise.all([
      read(
        auth,
        request.url,
        headersFor(request, {
          [PROFILE_PARTS_HEADER]: PROFILE_PARTS_ACCOUNT,
          ...(request.headers.cookie ? { cookie: request.headers.cookie } : {}),
        }),
      ).then(
        async (response) => ({ response, text: await response.body.text() }),
        (error: Error) => ({ error }),
      ),
      part(game, '/api/game/profile', GameProfile, request),
      part(payments, '/api/payments/profile', PaymentsProfile, request),
    ]);
    if ('error' in account) {
      const { status, message } = upstreamFailure('auth', account.error as never);
      request.log.warn({ err: account.error, service: 'auth', status }, 'upstream failed');
      if (status === 503) void reply.header('retry-after', '2');
      return reply
        .code(status)
        .type('application/json')
        .send(errorBody(message, { code: ERROR_CODE.UPSTREAM_UNAVAILABLE, requestId: request.id }));
    }
    const { response, text } = account;
    const contentType = response.headers['content-type'];
    if (response.statusCode !== 200) {
      // Auth's refusal as it gave it (its status, body and Retry-After).
      const retryAfter = response.headers['retry-after'];
      if (typeof retryAfter === 'string') void reply.header('retry-after', retryAfter);
      return reply
        .code(response.statusCode)
        .type(typeof contentType === 'string' ? contentType : 'application/json')
        .send(text);
    }
    const profile = JSON.parse(text) as Record<string, unknown>;
    for (const [service, got] of [
      ['game', gamePart],
      ['payments', paymentsPart],
    ] as const) {
      if (got.ok) Object.assign(profile, got.data);
      else {
        partsMissing.inc({ service });
        request.log.warn({ reason: got.reason }, `${service} profile unavailable`);
      }
    }
    return reply.code(200).header('cache-control', 'no-store').type('application/json').send(profile);
  });
}
