// Read access to the game's own database in tests, to check what Postgres holds.
import { createDb } from '@omc/service-kit';
import type { Database } from '../src/db/schema.js';
import type { Harness } from './support.js';

export async function peek(h: Harness) {
  return { db: createDb<Database>(h.config.DATABASE_URL, { max: 2 }) };
}
