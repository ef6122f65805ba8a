// Advisory locks (transaction-scoped; Postgres hashes the names to lock ids).
import { sql, type Transaction } from 'kysely';
import type { Database } from './schema.js';

/**
 * Taken (shared) by every transaction that writes what Redis decided (a win, a journal flush), and
 * (exclusive) by a rebuild of the round state: the rebuild reads Postgres only once every such write
 * under way has committed, and writes wait while a rebuild reads.
 */
const STATE_WRITES_LOCK = 'omc-game-state-writes';
/** One journal flush at a time (the Redis lock can expire under a very slow Postgres). */
const JOURNAL_LOCK = 'omc-game-journal';

export async function lockStateWritesShared(trx: Transaction<Database>): Promise<void> {
  await sql`select pg_advisory_xact_lock_shared(hashtext(${STATE_WRITES_LOCK}))`.execute(trx);
}

export async function lockStateWritesForRebuild(trx: Transaction<Database>): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${STATE_WRITES_LOCK}))`.execute(trx);
}

export async function lockJournal(trx: Transaction<Database>): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${JOURNAL_LOCK}))`.execute(trx);
}
