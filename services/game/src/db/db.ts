import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

/** What a repository function runs on: the pool, or a transaction under way. */
export type Db = Kysely<Database> | Transaction<Database>;
