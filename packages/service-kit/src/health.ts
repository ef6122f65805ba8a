// Liveness and readiness. /readyz reports each dependency and answers 503 while one the pod cannot serve
// without is down, so Kubernetes stops sending it traffic until it returns, without a restart. A store
// the pod can serve without (its pages, cached state, refusing fast what needs the store) is reported
// but does not make it unready: a stall of a store every pod shares would otherwise empty the Service.
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
  /** Calls `listener` with the new state each time readiness changes (not on the first evaluation). */
  onChange(listener: (ready: boolean) => void): void;
}

const readinessByApp = new WeakMap<FastifyInstance, Readiness>();

/** The readiness registered on this app by registerHealth, if any. */
export function readinessOf(app: FastifyInstance): Readiness | undefined {
  return readinessByApp.get(app);
}

/**
 * `checks` gate readiness; `reported` are only shown in /readyz's report (each check answers within
 * `timeoutMs`, so /readyz answers within it too while a store stalls).
 */
export function registerHealth(
  app: FastifyInstance,
  checks: Record<string, Check>,
  timeoutMs = 1000,
  reported: Record<string, Check> = {},
): void {
  let last: boolean | undefined;
  const listeners: ((ready: boolean) => void)[] = [];
  const readiness: Readiness = {
    onChange: (listener) => void listeners.push(listener),
    async evaluate() {
      const all = { ...reported, ...checks };
      const names = Object.keys(all);
      const results = await Promise.all(names.map((name) => runCheck(all[name]!, timeoutMs)));
      const report = Object.fromEntries(names.map((name, i) => [name, results[i]!]));
      const ready = names.every((name, i) => !(name in checks) || results[i] === 'ok');
      if (last !== undefined && last !== ready) for (const listener of listeners) listener(ready);
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
