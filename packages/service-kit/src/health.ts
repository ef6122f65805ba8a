// Liveness and readiness. /readyz reports each dependency and answers 503 while any is down, so the
// gateway and Kubernetes stop sending traffic until it returns, without a restart.
import type { FastifyInstance } from 'fastify';

export type Check = () => Promise<unknown> | unknown;

async function runCheck(check: Check, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.resolve().then(check),
      new Promise(
        (_, reject) =>
          (timer = setTimeout(() => reject(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs)),
      ),
    ]);
    return 'ok';
  } catch (error) {
    return `down: ${(error as Error).message}`;
  } finally {
    clearTimeout(timer);
  }
}

/** What registerMetrics reads to export readiness: the latest answer and how often it changed. */
export interface Readiness {
  evaluate(): Promise<{ ready: boolean; report: Record<string, string> }>;
  /** Called with the new state each time readiness changes (not on the first evaluation). */
  onChange?: (ready: boolean) => void;
}

const readinessByApp = new WeakMap<FastifyInstance, Readiness>();

/** The readiness registered on this app by registerHealth, if any. */
export function readinessOf(app: FastifyInstance): Readiness | undefined {
  return readinessByApp.get(app);
}

export function registerHealth(app: FastifyInstance, checks: Record<string, Check>, timeoutMs = 1000): void {
  let last: boolean | undefined;
  const readiness: Readiness = {
    async evaluate() {
      const names = Object.keys(checks);
      const results = await Promise.all(names.map((name) => runCheck(checks[name]!, timeoutMs)));
      const report = Object.fromEntries(names.map((name, i) => [name, results[i]!]));
      const ready = results.every((r) => r === 'ok');
      if (last !== undefined && last !== ready) readiness.onChange?.(ready);
      last = ready;
      return { ready, report };
    },
  };
  readinessByApp.set(app, readiness);
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ status: 'ok' }));
  app.get('/readyz', { logLevel: 'warn' }, async (_request, reply) => {
    const { ready, report } = await readiness.evaluate();
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks: report });
  });
}
