import { ERROR_CODE, errorBody } from '@omc/contracts';
import rateLimit from '@fastify/rate-limit';
import {
  addressBudgetKey,
  compileTrust,
  createServer,
  observeRequests,
  registerTextGuard,
  startedHandle,
  type Started,
} from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { Deps } from './deps.js';
import { apiDocs } from './docs/api-docs.js';
import { buildInternalApp } from './internal.js';
import { clickAdmission } from './edge/click-admission.js';
import { pathProblem } from './edge/path-guard.js';
import { securityHeaders } from './edge/security-headers.js';
import { apiProxy } from './routing/api-proxy.js';
import { profileRoute } from './routing/profile.js';
import { attachSocketTunnel } from './routing/socket-tunnel.js';
import { webApp } from './web/web-app.js';
import { WinnersPages } from './web/winners-page.js';

/** What start() needs of a built gateway: its deps and its internal listener (built, not listening). */
export interface GatewayContext {
  deps: Deps;
  internal: FastifyInstance;
}

export type GatewayApp = FastifyInstance & { gateway: GatewayContext };

export async function buildApp(deps: Deps, options: { logger?: false } = {}): Promise<GatewayApp> {
  const { config, metrics } = deps;
  const app = createServer({
    name: 'gateway',
    log: deps.log,
    logger: options.logger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: compileTrust(config.TRUST_PROXY),
    // After the path check below: a path that is not its route's one spelling is told so first.
    guardText: false,
  });

  // First of all: a click over the click path's budget is refused before any other work is done for it.
  clickAdmission(
    app,
    {
      maxInFlight: config.CLICK_MAX_IN_FLIGHT,
      maxQueue: config.CLICK_MAX_WAITING,
      targetMs: config.CLICK_TARGET_MS,
      intervalMs: config.CLICK_INTERVAL_MS,
      penaltyMaxKeys: config.CLICK_PENALTY_MAX_KEYS,
      penaltyMaxSeconds: config.CLICK_PENALTY_MAX_SECONDS,
      penaltyDelayMs: config.CLICK_PENALTY_DELAY_MS,
      trustProxy: config.TRUST_PROXY,
    },
    metrics,
  );

  // Before routing: a path that could mean another path reaches nothing.
  app.addHook('onRequest', async (request, reply) => {
    const problem = pathProblem(request.raw.url);
    if (problem) {
      const message = `Bad request path: ${problem}`;
      return reply.code(400).send(errorBody(message, { code: ERROR_CODE.BAD_PATH, requestId: request.id }));
    }
  });
  registerTextGuard(app);

  await securityHeaders(
    app,
    config.BRAINTREE_EMULATOR_URL ? [new URL(config.BRAINTREE_EMULATOR_URL).origin] : [],
  );
  observeRequests(app, metrics);
  // Liveness, readiness and metrics answer on the internal listener only (internal.ts); here they are
  // a plain 404, not the web app's page.
  for (const path of ['/healthz', '/readyz', '/metrics']) {
    app.all(path, async (request, reply) => {
      const message = `No route ${request.method} ${path}`;
      return reply.code(404).send(errorBody(message, { code: ERROR_CODE.NOT_FOUND, requestId: request.id }));
    });
  }

  await app.register(async (api) => {
    if (config.RATE_LIMIT_PER_IP > 0) {
      await api.register(rateLimit, {
        max: config.RATE_LIMIT_PER_IP,
        timeWindow: 60_000,
        redis: deps.redis,
        nameSpace: 'omc:gateway:rate:',
        // Redis away: serve rather than refuse everyone.
        skipOnError: true,
        // One budget per IPv4 address, per IPv6 /64.
        keyGenerator: (request) => addressBudgetKey(request.ip),
        errorResponseBuilder: (_request, context) => ({
          statusCode: 429,
          code: ERROR_CODE.RATE_LIMITED,
          message: `Too many requests from your address: at most ${context.max} a minute. Try again in ${context.after}.`,
        }),
      });
    }
    await apiDocs(api);
    // The profile is put together here from its three owners (one hop each), not proxied to auth.
    if (config.PROFILE_IN_ONE_HOP) await profileRoute(api, config, metrics);
    await apiProxy(api, config, metrics);
    // The live connection is websocket only (docs/client-contract.md); a polling request gets a clear answer.
    api.all('/socket.io/*', async (request, reply) => {
      const message = 'The live connection uses the websocket transport only';
      return reply
        .code(400)
        .send(errorBody(message, { code: ERROR_CODE.WEBSOCKET_ONLY, requestId: request.id }));
    });
  });

  attachSocketTunnel(app, {
    upstreams: config.REALTIME_URLS,
    trustProxy: config.TRUST_PROXY,
    maxPerAddress: config.WS_MAX_PER_IP,
    metrics,
    // Half the grace period: the rest is for requests in flight and closing the connections.
    drainMs: Math.floor(config.SHUTDOWN_GRACE_MS / 2),
  });
  const winnersPages =
    config.WINNERS_PAGE_TTL_MS > 0
      ? new WinnersPages({
          root: config.WEB_DIST,
          gameUrl: config.GAME_URL,
          log: app.log,
          ttlMs: config.WINNERS_PAGE_TTL_MS,
          waitMs: config.WINNERS_PAGE_WAIT_MS,
        })
      : undefined;
  if (winnersPages) app.addHook('onClose', () => winnersPages.close());
  await webApp(app, config.WEB_DIST, winnersPages);

  // Liveness, readiness and metrics: a second server, started by start() on GATEWAY_INTERNAL_PORT.
  const internal = await buildInternalApp(deps, app, { logger: options.logger });
  app.decorate('gateway', { deps, internal } satisfies GatewayContext);
  return app as GatewayApp;
}

/** Starts the internal listener; its handle's stop() closes it. */
export async function start(app: GatewayApp): Promise<Started> {
  const { deps, internal } = app.gateway;
  await internal.listen({ port: deps.config.GATEWAY_INTERNAL_PORT, host: deps.config.HOST });
  return startedHandle({}, () => internal.close());
}
