// The outbox is the record, the bus is the doorbell: on a schedule the game asks payments for the
// purchases it completed and applies those whose purchase.completed event never arrived (a NATS node that
// lost its unsynced tail, a stream recreated). Applying is idempotent by purchase id (Postgres' record,
// and the Redis purchases set for one in flight), so a pass racing the late event credits once.
import {
  INTERNAL_COMPLETED_PURCHASES_PATH,
  InternalPurchasesResponse,
  type InternalPurchase,
} from '@omc/contracts';
import type { ServiceCredentials } from '@omc/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { knownPurchases } from '../db/purchases.repo.js';
import type { Database } from '../db/schema.js';
import type { PurchasesService } from '../purchases/purchases.service.js';

const PAGE = 500;

export interface PurchaseReconcilerOptions {
  db: Kysely<Database>;
  purchases: PurchasesService;
  paymentsUrl: string;
  credentials: ServiceCredentials;
  timeoutMs: number;
  log: Logger;
}

async function completedSince(
  options: PurchaseReconcilerOptions,
  since: Date,
  after?: InternalPurchase,
): Promise<InternalPurchase[]> {
  const query = new URLSearchParams({ since: since.toISOString(), limit: String(PAGE) });
  if (after) {
    query.set('afterAt', after.completedAt);
    query.set('afterId', after.purchaseId);
  }
  const response = await fetch(`${options.paymentsUrl}${INTERNAL_COMPLETED_PURCHASES_PATH}?${query}`, {
    headers: { accept: 'application/json', ...options.credentials.headersFor('payments') },
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`payments answered ${response.status} for its completed purchases`);
  }
  return InternalPurchasesResponse.parse(await response.json()).purchases;
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
