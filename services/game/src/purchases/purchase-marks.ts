// Redis' purchases hash (the marks of purchases applied there) kept bounded against Postgres' record.
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import { purchasesRecordedBefore } from './purchases.repo.js';
import type { Database } from '../db/schema.js';
import { KEYS } from '../engine/keys.js';

/** How long a purchase stays in Redis' purchases hash after Postgres recorded it. */
export const PURCHASE_MARK_RETENTION_MS = 60 * 60_000;

/**
 * Bounds Redis' purchases hash: a purchase Postgres recorded longer than `retentionMs` ago is dropped from
 * it (a late redelivery of its event finds Postgres' record first and changes nothing); those not yet
 * recorded, or recorded a moment ago (an application may be racing), stay. Returns how many went.
 */
export async function prunePurchaseMarks(
  db: Kysely<Database>,
  redis: Redis,
  now: number,
  retentionMs = PURCHASE_MARK_RETENTION_MS,
): Promise<number> {
  let cursor = '0';
  let removed = 0;
  do {
    const [next, flat] = await redis.hscan(KEYS.purchases, cursor, 'COUNT', 500);
    cursor = next;
    const ids = flat.filter((_, i) => i % 2 === 0).filter((id) => UUID.test(id));
    if (ids.length === 0) continue;
    const old = await purchasesRecordedBefore(db, ids, new Date(now - retentionMs));
    if (old.length > 0) removed += await redis.hdel(KEYS.purchases, ...old);
  } while (cursor !== '0');
  return removed;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
