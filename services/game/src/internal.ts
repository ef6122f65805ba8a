// The game's internal listener (INTERNAL_PORT): the routes only auth and payments call: the role change
// auth makes before updateRole answers, a suspension or restore, the balances of the admin list's page,
// and payments' take-back of a refunded purchase. A port of its own, because a NetworkPolicy admits
// callers by port, not by path: the public port must admit the gateway (and Prometheus), this one auth
// and payments alone.
import { createServer, registerInternalCallers, registerTokens } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { GameContext } from './context.js';
import { roleRoutes } from './players/role.routes.js';
import { takeBackRoutes } from './purchases/take-back.routes.js';
import { balancesRoutes } from './players/balances.routes.js';
import { suspensionRoutes } from './players/suspension.routes.js';

export async function buildInternalApp(
  ctx: GameContext,
  options: { logger?: false } = {},
): Promise<FastifyInstance> {
  const { deps } = ctx;
  const app = createServer({ name: 'game', log: deps.log, logger: options.logger });
  registerInternalCallers(app, deps.credentials);
  await registerTokens(app, { publicKey: deps.config.JWT_PUBLIC_KEY });
  await app.register(roleRoutes, ctx);
  await app.register(takeBackRoutes, ctx);
  await app.register(suspensionRoutes, ctx);
  await app.register(balancesRoutes, ctx);
  return app;
}
