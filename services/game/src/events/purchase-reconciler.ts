// The outbox is the record, the bus is the doorbell: on a schedule the game asks payments for the
// purchases it completed and applies those whose purchase.completed event never arrived (a NATS node that
// lost its unsynced tail, a stream recreated). Applying is idempotent by purchase id (Postgres' record,
// and the Redis purchases set for one in flight), so a pass racing the late event credits once.
import { INTERNAL, type InternalPurchase } from '@omc/contracts';
import { outcomeReason, type InternalClient } from '@omc/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { knownPurchases } from '../purchases/purchases.repo.js';
import type { Database } from '../db/schema.js';
import type { PurchasesService } from '../purchases/purchases.service.js';

const PAGE = 500;

export interface PurchaseReconcilerOptions {
  db: Kysely<Database>;
  purchases: PurchasesService;
  internal: InternalClient;
  log: Logger;
}

async function completedSince(
  options: PurchaseReconcilerOptions,
  since: Date,
  after?: InternalPurchase,
): Promise<InternalPurchase[]> {
  const query: Record<string, string> = { since: since.toISOString(), limit: String(PAGE) };
  if (after) Object.assign(query, { afterAt: after.completedAt, afterId: after.purchaseId });
  const asked = await options.internal.call(INTERNAL.completedPurchases, { query });
  if (asked.kind !== 'answered')
    throw new Error(`payments did not give its completed purchases: ${outcomeReason(asked)}`);
  return asked.data.purchases;
}

/** One pass: applies every purchase payments completed since `since` that the game has not. */
export async function reconcilePurchases(options: PurchaseReconcilerOptions, since: Date): Promise<number> {
  let repaired = 0;
  let after: InternalPurchase | undefined;
  for (;;) {
    const page = await completedSince(options, since, after);
    if (page.length > 0) {
      const known = await knownPurchases(
        options.db,
        page.map((p) => p.purchaseId),
      );
      for (const purchase of page) {
        if (known.has(purchase.purchaseId)) continue;
        const { completedAt: _completedAt, ...event } = purchase;
        const round = await options.purchases.apply(event);
        repaired += 1;
        options.log.warn(
          { purchaseId: purchase.purchaseId, round },
          'purchase applied by reconciliation (its event had not arrived)',
        );
      }
    }
    if (page.length < PAGE) return repaired;
    after = page[page.length - 1];
  }
}
