// Checkout: the client names a pack by its price; we charge the pack's price once, whatever happens
// between us and Braintree, and credit it once. The purchase id is the order id at the provider, so a
// call whose answer was lost is found there again (reconciliation) instead of being charged again.
import { createHash } from 'node:crypto';
import {
  type CheckoutRequest,
  type CheckoutResponse,
  errorBody,
  formatEuroAmount,
  makeEvent,
  packById,
  packForAmount,
  type PackId,
  PACKS,
  SUBJECTS,
} from '@omc/contracts';
import { backoff, badRequest, conflict, enqueueEvent, RETRY_POLICIES } from '@omc/service-kit';
import type { Deps } from '../deps.js';
import { ACCOUNTS } from '../ledger/accounts.js';
import { postMovement } from '../ledger/ledger.repo.js';
import type { PaymentsMetrics } from '../metrics.js';
import { isApproved, type ProviderTransaction } from '../providers/braintree.js';
import {
  abandonedPurchases,
  claimPurchase,
  findOrCreatePurchase,
  finishPurchase,
  getPurchase,
  releasePurchase,
  type Purchase,
} from './purchases.repo.js';

export interface CheckoutResult {
  status: 200 | 409 | 502;
  body: CheckoutResponse;
}

export function splitPrice(
  priceCents: number,
  potSharePercent: number,
): { potShareCents: number; houseShareCents: number } {
  const potShareCents = Math.floor((priceCents * potSharePercent) / 100);
  return { potShareCents, houseShareCents: priceCents - potShareCents };
}

export class CheckoutService {
  constructor(
    private readonly deps: Deps,
    private readonly metrics: PaymentsMetrics,
    private readonly nudgeOutbox: () => void,
  ) {}

  private get leaseMs() {
    // Long enough for one provider call and the search that follows a timeout.
    return this.deps.config.BRAINTREE_TIMEOUT_MS * 2 + 2000;
  }

  async checkout(userId: string, request: CheckoutRequest): Promise<CheckoutResult> {
    const pack = packForAmount(request.amount);
    if (!pack) {
      throw badRequest(
        `amount must be the price of a pack (${PACKS.map((p) => formatEuroAmount(p.priceCents)).join(', ')}); got "${request.amount}"`,
        'amount',
      );
    }
    const nonceHash = createHash('sha256').update(request.paymentMethodNonce).digest('hex');
    const purchase = await findOrCreatePurchase(this.deps.db, {
      userId,
      idempotencyKey: request.idempotencyKey,
      nonceHash,
      packId: pack.id,
      amountCents: pack.priceCents,
    });
    if (purchase.user_id !== userId || purchase.pack_id !== pack.id || purchase.nonce_hash !== nonceHash) {
      throw conflict(
        'idempotencyKey was already used for a different checkout; use a new key for a new purchase',
        'idempotencyKey',
      );
    }

    // Wait for whoever is calling the provider for this purchase, or take the call ourselves.
    const deadline = Date.now() + this.leaseMs + 5000;
    for (let waits = 0; ;) {
      const current = (await getPurchase(this.deps.db, purchase.id))!;
      if (current.status !== 'pending') return this.answer(current);
      const attempt = await claimPurchase(this.deps.db, purchase.id, this.leaseMs);
      if (attempt !== undefined) return this.attempt(current, attempt, request.paymentMethodNonce);
      if (Date.now() > deadline) {
        return {
          status: 409,
          body: errorBody(
            'This payment is still being processed; try again in a moment with the same idempotencyKey.',
            { success: false as const },
          ),
        };
      }
      await backoff(RETRY_POLICIES.checkoutInFlight, waits++);
    }
  }

  private answer(purchase: Purchase): CheckoutResult {
    if (purchase.status === 'succeeded') {
      return {
        status: 200,
        body: {
          success: true,
          transactionId: purchase.provider_transaction_id!,
          clicks: packById(purchase.pack_id as PackId).clicks,
        },
      };
    }
    const error = purchase.error ?? 'The payment did not go through. Nothing was charged.';
    return { status: 200, body: errorBody(error, { success: false as const }) };
  }

  private unavailable(message: string): CheckoutResult {
    const error = `The payment provider is unavailable (${message}). Nothing has been credited; retry with the same idempotencyKey and you will not be charged twice.`;
    return { status: 502, body: errorBody(error, { success: false as const }) };
  }

  private async attempt(purchase: Purchase, attempt: number, nonce: string): Promise<CheckoutResult> {
    const pack = packById(purchase.pack_id as PackId);
    // A previous attempt may have reached Braintree: look before charging again.
    if (attempt > 1) {
      let found: ProviderTransaction[];
      try {
        found = await this.deps.payments.findByOrderId(purchase.id);
      } catch (error) {
        await releasePurchase(
          this.deps.db,
          purchase.id,
          `reconciliation failed: ${(error as Error).message}`,
        );
        this.metrics.checkouts.inc({ outcome: 'unavailable' });
        return this.unavailable((error as Error).message);
      }
      const settled = await this.settleFromProvider(purchase, found);
      if (settled) return settled;
    }

    let result;
    try {
      result = await this.deps.payments.sale({
        amount: formatEuroAmount(pack.priceCents),
        nonce,
        orderId: purchase.id,
      });
    } catch (error) {
      // No answer: the charge may or may not exist. Ask Braintree by our order id.
      this.deps.log.warn(
        { purchaseId: purchase.id, err: (error as Error).message },
        'Braintree sale without an answer; reconciling by order id',
      );
      try {
        const found = await this.deps.payments.findByOrderId(purchase.id);
        const settled = await this.settleFromProvider(purchase, found);
        if (settled) return settled;
      } catch (searchError) {
        this.deps.log.warn(
          { purchaseId: purchase.id, err: (searchError as Error).message },
          'reconciliation search failed',
        );
      }
      // Keep the lease: the unanswered call could still land while it lasts, and a retry then finds it.
      this.metrics.checkouts.inc({ outcome: 'unavailable' });
      return this.unavailable((error as Error).message);
    }

    if (result.kind === 'approved') return this.complete(purchase, result.transaction);
    const message =
      result.kind === 'declined'
        ? `The payment was declined: ${result.message}. Nothing was charged.`
        : `The payment method was not accepted: ${result.message} Nothing was charged.`;
    await finishPurchase(this.deps.db, purchase.id, {
      status: result.kind === 'declined' ? 'declined' : 'failed',
      providerTransactionId: result.kind === 'declined' ? (result.transaction?.id ?? null) : null,
      error: message,
    });
    this.metrics.checkouts.inc({ outcome: result.kind });
    return this.answer((await getPurchase(this.deps.db, purchase.id))!);
  }

  /** Applies what Braintree holds for this order id; undefined when it holds nothing. */
  private async settleFromProvider(
    purchase: Purchase,
    found: ProviderTransaction[],
  ): Promise<CheckoutResult | undefined> {
    const approved = found.filter(isApproved);
    if (approved.length > 0) {
      const [keep, ...extra] = approved;
      // Two charges for one order id can only come from a lost answer racing a retry: keep one, void the rest.
      for (const duplicate of extra) {
        this.deps.log.error(
          { purchaseId: purchase.id, transactionId: duplicate.id },
          'second charge for one purchase; voiding it',
        );
        await this.deps.payments.void(duplicate.id).catch((error) => {
          this.metrics.voidsFailed.inc();
          this.deps.log.error(
            { err: error, purchaseId: purchase.id, transactionId: duplicate.id },
            'void failed; refund it by hand',
          );
        });
      }
      return this.complete(purchase, keep!);
    }
    if (found.length > 0) {
      const last = found[found.length - 1]!;
      const message = `The payment was declined (${last.status}). Nothing was charged.`;
      await finishPurchase(this.deps.db, purchase.id, {
        status: 'declined',
        providerTransactionId: last.id,
        error: message,
      });
      this.metrics.checkouts.inc({ outcome: 'declined' });
      return this.answer((await getPurchase(this.deps.db, purchase.id))!);
    }
    return undefined;
  }

  /** One database transaction: the purchase succeeds, the ledger moves, the event is queued. */
  private async complete(purchase: Purchase, transaction: ProviderTransaction): Promise<CheckoutResult> {
    const pack = packById(purchase.pack_id as PackId);
    const { potShareCents, houseShareCents } = splitPrice(
      purchase.amount_cents,
      this.deps.config.POT_SHARE_PERCENT,
    );
    const completed = await this.deps.db.transaction().execute(async (trx) => {
      const finished = await finishPurchase(trx, purchase.id, {
        status: 'succeeded',
        providerTransactionId: transaction.id,
        error: null,
      });
      if (!finished) return false;
      await postMovement(trx, {
        kind: 'purchase',
        reference: `purchase:${purchase.id}`,
        entries: [
          { accountId: ACCOUNTS.braintreeCashIn, amountCents: -purchase.amount_cents },
          { accountId: ACCOUNTS.roundPot, amountCents: potShareCents },
          { accountId: ACCOUNTS.house, amountCents: houseShareCents },
        ],
      });
      await enqueueEvent(
        trx,
        makeEvent(
          SUBJECTS.purchaseCompleted,
          {
            purchaseId: purchase.id,
            userId: purchase.user_id,
            packId: pack.id,
            clicks: pack.clicks,
            unlimited: pack.clicks === null,
            amountCents: purchase.amount_cents,
            potShareCents,
            houseShareCents,
            transactionId: transaction.id,
          },
          `purchase-completed:${purchase.id}`,
        ),
      );
      return true;
    });
    if (completed) {
      this.metrics.checkouts.inc({ outcome: 'succeeded' });
      this.nudgeOutbox();
    }
    return this.answer((await getPurchase(this.deps.db, purchase.id))!);
  }

  /**
   * Settles purchases left pending by a crash or an abandoned retry: found at Braintree, they are
   * credited; not found long after the last call could have landed, they failed.
   */
  async reconcilePending(
    options: { minAgeMs?: number; giveUpAfterMs?: number } = {},
  ): Promise<{ completed: number; failed: number }> {
    const giveUpAfterMs = options.giveUpAfterMs ?? 10 * 60_000;
    let completed = 0;
    let failed = 0;
    for (const purchase of await abandonedPurchases(this.deps.db, options.minAgeMs ?? 60_000)) {
      const attempt = await claimPurchase(this.deps.db, purchase.id, this.leaseMs);
      if (attempt === undefined) continue;
      try {
        const found = await this.deps.payments.findByOrderId(purchase.id);
        const settled = await this.settleFromProvider(purchase, found);
        if (settled) {
          if (settled.body.success) completed++;
          continue;
        }
        const age = Date.now() - new Date(purchase.updated_at).getTime();
        if (age >= giveUpAfterMs) {
          await finishPurchase(this.deps.db, purchase.id, {
            status: 'failed',
            providerTransactionId: null,
            error: 'The payment never reached the provider. Nothing was charged.',
          });
          failed++;
        } else {
          await releasePurchase(this.deps.db, purchase.id, 'not found at the provider yet');
        }
      } catch (error) {
        await releasePurchase(
          this.deps.db,
          purchase.id,
          `reconciliation failed: ${(error as Error).message}`,
        );
      }
    }
    return { completed, failed };
  }
}
