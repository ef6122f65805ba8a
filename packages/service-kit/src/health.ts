// Liveness and readiness. /readyz reports each dependency and answers 503 while any is down, so the
// gateway and Kubernetes stop sending traffic until it returns, without a restart.
import type { FastifyInstance } from 'fastify';

export type Check = () => Promise<unknown> | unknown;

async function runCheck(check: Check, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.resolve().then(check),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs))),
    ]);
    return 'ok';
  } catch (error) {
    return `down: ${(error as Error).message}`;
  } finally {
    clearTimeout(timer);
  }
}

export function registerHealth(app: FastifyInstance, checks: Record<string, Check>, timeoutMs = 1000): void {
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { logLevel: 'warn' }, async (_request, reply) => {
    const names = Object.keys(checks);
    const results = await Promise.all(names.map((name) => runCheck(checks[name]!, timeoutMs)));
    const report = Object.fromEntries(names.map((name, i) => [name, results[i]]));
    const ready = results.every((r) => r === 'ok');
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks: report });
  });
}
