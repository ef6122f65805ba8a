// The gateway's internal listener (GATEWAY_INTERNAL_PORT): liveness, readiness and metrics, for the
// kubelet and Prometheus only. It is not in the Service, not behind the ingress, and the NetworkPolicy
// lets only the monitoring namespace in; the public port answers these paths with a 404.
import { createServer, pingRedis, registerHealth, serveMetrics } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { Deps } from './deps.js';

export async function buildInternalApp(
  deps: Deps,
  publicApp: FastifyInstance,
  options: { logger?: false } = {},
): Promise<FastifyInstance> {
  const app = createServer({
    name: 'gateway',
    log: deps.log,
    logger: options.logger,
  });
  registerHealth(
    app,
    {
      // Ready means players can be served: not before the public port listens, nor once it has closed.
      public: () => {
        if (!publicApp.server.listening) throw new Error('the public port is not listening');
      },
    },
    1000,
    // The request budget's Redis fails open: reported, never a reason to stop serving.
    { redis: () => pingRedis(deps.redis) },
  );
  serveMetrics(app, deps.metrics);
  return app;
}
