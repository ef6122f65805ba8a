// Every call to Redis or Postgres has a deadline shorter than a request's: a stalled store (paused, a long
// fork, a failover, a partition) fails the call after it, and the request is answered 503 with
// Retry-After ("try again in a moment") instead of waiting. This file holds the defaults and the one
// test of whether an error means "the store did not answer"; errors.ts maps it.
import { AsyncLocalStorage } from 'node:async_hooks';

export const STORE_DEADLINES = {
  /** A Redis command without an answer after this long fails (ioredis `commandTimeout`). */
  redisCommandMs: 1000,
  /**
   * A Postgres query on a request's path without an answer after this long fails, and so does its wait
   * for a connection from the pool (off a request's path that wait is bounded at 5 s, queries not at all).
   */
  postgresQueryMs: 1500,
} as const;

const inRequest = new AsyncLocalStorage<true>();

/** Runs `work` as part of a request: its Postgres queries carry the deadline (server.ts wraps each). */
export function asRequest<T>(work: () => T): T {
  return inRequest.run(true, work);
}

/**
 * Whether the Postgres query deadline applies to a query started now: on a request's path, yes; in the
 * background (migrations, a rebuild waiting for its lock, journal flushes, reconcilers), no: nobody is
 * waiting for an answer, and a lock may be held longer than a request may wait.
 */
export function queryDeadlineApplies(): boolean {
  return inRequest.getStore() === true;
}

// What ioredis and pg say when a store did not answer in time or could not be reached.
const STORE_MESSAGES = [
  'Command timed out',
  'Connection is closed.',
  "Stream isn't writeable and enableOfflineQueue options is false",
  'Query read timeout',
  'timeout exceeded when trying to connect',
  'Connection terminated',
];
// SQLSTATE classes and codes: connection exceptions, the server shutting down, no connection slots,
// a statement cancelled by statement_timeout.
const STORE_CODES = /^(08|57P0|53300$|57014$|ECONNREFUSED$|ECONNRESET$|ETIMEDOUT$|EPIPE$)/;

/** Whether an error says a store (Redis, Postgres) did not answer in time or was out of reach. */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && STORE_CODES.test(code)) return true;
  return STORE_MESSAGES.some((m) => error.message.startsWith(m));
}
