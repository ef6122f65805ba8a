// A store that goes away (Postgres restarting, Redis failing over) makes its client report an error at
// every reconnect attempt. They are logged once per outage: the first error, then one line when it is
// reachable again, so an outage is in the log without burying everything else.
import type { Logger } from 'pino';

export interface OutageLog {
  /** A connection error: logged only if the store was reachable until now. */
  failed(error: unknown): void;
  /** A connection succeeded: logged only if an outage was under way. */
  recovered(): void;
}

export function outageLog(log: Logger | undefined, store: string): OutageLog {
  let down = false;
  let since = 0;
  return {
    failed(error) {
      if (down) return;
      down = true;
      since = Date.now();
      log?.error({ err: error, store }, `${store} unreachable; reconnecting (logged once until it is back)`);
    },
    recovered() {
      if (!down) return;
      down = false;
      log?.warn({ store, downMs: Date.now() - since }, `${store} reachable again`);
    },
  };
}
