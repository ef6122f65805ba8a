// Postgres through kysely. Each service owns its database and migrates it at start (and from a
// Kubernetes Job); migrations are plain objects in code, frozen in time.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { outageLog } from './outage.js';
import { queryDeadlineApplies, STORE_DEADLINES } from './store-deadline.js';

// Postgres bigint (int8) and numeric come back as strings; our counts and cents fit in a JS number.
pg.types.setTypeParser(20, (value) => Number(value));

export function createDb<DB>(
  url: string,
  options: {
    max?: number;
    name?: string;
    log?: Logger;
    /** On a request's path, a query unanswered (or a connection not had) after this long fails. */
    queryTimeoutMs?: number;
  } = {},
): Kysely<DB> {
  const deadline = options.queryTimeoutMs ?? STORE_DEADLINES.postgresQueryMs;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.name,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 15_000,
  });
  const outage = outageLog(options.log, 'postgres');
  // An idle client's error (the server restarted) must not crash the process; the pool replaces it.
  pool.on('error', (error) => outage.failed(error));
  // So does a checked-out client's (between the queries of a transaction): the query fails, the pool drops it.
  pool.on('connect', (client) => {
    outage.recovered();
    client.on('error', (error) => outage.failed(error));
  });
  // A connection that cannot be made (the server is down) fails the query; it is logged once per outage.
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  (pool as unknown as { connect: () => Promise<pg.PoolClient> }).connect = () => {
    const pending = connect().then(withQueryDeadline(deadline), (error: unknown) => {
      outage.failed(error);
      throw error;
    });
    return queryDeadlineApplies() ? withinDeadline(pending, deadline) : pending;
  };
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}

/** A request waits this long at most for a connection; one had later goes back to the pool unused. */
function withinDeadline(pending: Promise<pg.PoolClient>, deadline: number): Promise<pg.PoolClient> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`timeout exceeded when trying to connect (${deadline} ms)`));
      pending.then(
        (client) => client.release(),
        () => undefined,
      );
    }, deadline);
    pending.then(
      (client) => {
        clearTimeout(timer);
        resolve(client);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** Per connection: whether a query on it passed its deadline (its answer may still come). */
const lateAnswer = new WeakMap<pg.PoolClient, boolean>();

/**
 * Each query on a request's path carries the deadline (store-deadline.ts). A connection
 * that had a query pass it is closed on release, not pooled: its transaction, if any, is rolled back
 * by the server, and no later query waits behind the late one.
 */
function withQueryDeadline(deadline: number) {
  return (client: pg.PoolClient): pg.PoolClient => {
    if (!lateAnswer.has(client)) {
      lateAnswer.set(client, false);
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        if (typeof args[0] !== 'string' || typeof args[2] === 'function' || !queryDeadlineApplies())
          return query(...args);
        return query({ text: args[0], values: args[1], query_timeout: deadline }).catch((error: unknown) => {
          if ((error as Error).message === 'Query read timeout') lateAnswer.set(client, true);
          throw error;
        });
      };
    }
    // The pool hands out a new release with each checkout.
    const release = client.release.bind(client);
    client.release = (error?: Error | boolean) =>
      release(error ?? (lateAnswer.get(client) ? new Error(`no answer within ${deadline} ms`) : undefined));
    return client;
  };
}
