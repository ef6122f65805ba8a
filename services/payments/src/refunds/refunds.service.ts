// Refunding a purchase (an admin's decision): the money goes back through Braintree (a void while the
// sale is not settled, a refund once it is), once; then the game takes back what the purchase gave; then
// one transaction posts the ledger movement and completes the refund. Each step is recorded before the
// next, so a retry of the same refund picks up where the last one stopped and never refunds twice.
import {
  ERROR_CODE,
  formatEuroAmount,
  type InternalTakeBack,
  type RefundView,
  type PackId,
  packById,
} from '@omc/contracts';
import { AppError, conflict, forbidden, notFound, type Caller } from '@omc/service-kit';
import type { Deps } from '../deps.js';
import { getPurchase, type Purchase } from '../checkout/purchases.repo.js';
import { ACCOUNTS } from '../ledger/accounts.js';
import { balance, lockAccount, postMovement } from '../ledger/ledger.repo.js';
import type { PaymentsMetrics } from '../metrics.js';
import { pendingPayout } from '../payouts/payouts.repo.js';
import type { ProviderSale } from '../providers/braintree.js';
import { recordInAuditLog } from '../users/audit-trail.js';
import type { GameTakeBack } from './game-take-back.js';
import {
  claimRefund,
  getRefund,
  markCompleted,
  markFailed,
  markReturned,
  purchaseShares,
  releaseRefund,
  startRefund,
  type Refund,
} from './refunds.repo.js';

/** A sale Braintree voids (nothing reached the card yet) and one it refunds (settled). */
const VOIDABLE = new Set(['authorized', 'submitted_for_settlement', 'settlement_pending']);
const REFUNDABLE = new Set(['settled', 'settling', 'settlement_confirmed']);

const providerUnavailable = (message: string) =>
  new AppError(
    ERROR_CODE.PROVIDER_UNAVAILABLE,
    502,
    `Braintree did not answer (${message}). Nothing was refunded that we know of; send the same refund again: it looks at Braintree first and never refunds twice.`,
  );

/** What Braintree already holds for the sale: the money went back (voided, or a refund made). */
function returnedAlready(sale: ProviderSale): { kind: 'void' | 'refund'; refundId: string } | undefined {
  if (sale.status === 'voided') return { kind: 'void', refundId: sale.id };
  if (sale.refundIds.length > 0) return { kind: 'refund', refundId: sale.refundIds[0]! };
  return undefined;
}

export function refundView(refund: Refund): RefundView {
  const euros = (cents: number | null) => (cents ?? 0) / 100;
  return {
    purchaseId: refund.purchase_id,
    status: refund.status,
    kind: refund.kind,
    providerRefundId: refund.provider_refund_id,
    amount: euros(refund.amount_cents),
    reason: refund.reason,
    clicksTakenBack: refund.clicks_taken ?? 0,
    passTakenBack: refund.pass_taken ?? false,
    potTakenBack: euros(refund.pot_cents),
    houseTakenBack: euros(refund.house_cents),
    operatorLoss: euros(refund.loss_cents),
    createdAt: new Date(refund.created_at).toISOString(),
    completedAt: refund.completed_at ? new Date(refund.completed_at).toISOString() : null,
  };
}

const alreadyRefunded = (refund: Refund) =>
  conflict(
    `This purchase was already refunded (${refund.kind === 'void' ? 'voided' : 'refunded'} on ${new Date(
      refund.completed_at ?? refund.updated_at,
    ).toISOString()}); it cannot be refunded again.`,
  );

export class RefundsService {
  constructor(
    private readonly deps: Deps,
    private readonly game: GameTakeBack,
    private readonly metrics: PaymentsMetrics,
  ) {}

  private get leaseMs() {
    const c = this.deps.config;
    // The provider's look-up and call, the look-up after a lost answer, and the game's take-back.
    return c.BRAINTREE_TIMEOUT_MS * 3 + c.GAME_TIMEOUT_MS + 5000;
  }

  /**
   * `admin` is the caller as auth has it now. Answers the completed refund; throws 409 when the purchase
   * was refunded before (or is being refunded by another request), 502 when Braintree did not answer or
   * refused (nothing recorded as moved), 503 when the money went back but the game could not take back
   * yet (the same refund again finishes it).
   */
  async refund(
    caller: Caller,
    admin: { userId: string; role: string },
    purchaseId: string,
    reason: string,
    ip: string | null,
  ): Promise<{ message: string; refund: RefundView }> {
    if (admin.role !== 'admin') throw forbidden('Admin only: only an admin can refund a purchase');
    const { db } = this.deps;
    const purchase = await getPurchase(db, purchaseId);
    if (!purchase) throw notFound(`No purchase with id ${purchaseId}`);
    if (purchase.status !== 'succeeded' || !purchase.provider_transaction_id)
      throw conflict(
        `Only a completed purchase can be refunded; this one is ${purchase.status}, so nothing was charged.`,
      );

    const existing = await startRefund(db, {
      purchaseId,
      amountCents: purchase.amount_cents,
      reason,
      adminUserId: admin.userId,
      adminIp: ip,
    });
    if (existing.status === 'completed') throw alreadyRefunded(existing);
    const claimed = await claimRefund(db, purchaseId, this.leaseMs);
    if (!claimed) {
      const now = await getRefund(db, purchaseId);
      if (now?.status === 'completed') throw alreadyRefunded(now);
      throw conflict(
        'A refund of this purchase is in progress; it moves the money once. Look at the purchase again in a moment.',
      );
    }
    if (claimed.status === 'returning') await this.returnMoney(purchase);

    let taken: InternalTakeBack;
    try {
      taken = await this.game.takeBack(caller, await this.asCompleted(purchase));
    } catch (error) {
      await releaseRefund(db, purchaseId, `take-back: ${(error as Error).message}`);
      this.metrics.refunds.inc({ outcome: 'game_unavailable' });
      throw new AppError(
        ERROR_CODE.GAME_UNAVAILABLE,
        503,
        `The money went back to the buyer, but the game could not take back the clicks and the pot share yet (${(error as Error).message}). Send the same refund again to finish it; it will not refund twice.`,
      );
    }
    const completed = await this.complete(purchase, taken);
    this.metrics.refunds.inc({ outcome: 'completed' });
    const view = refundView(completed);
    await recordInAuditLog(
      { authUrl: this.deps.config.AUTH_URL, timeoutMs: this.deps.config.AUTH_TIMEOUT_MS },
      caller,
      {
        action: 'purchase.refunded',
        targetId: purchase.user_id,
        detail: {
          purchaseId,
          transactionId: purchase.provider_transaction_id,
          kind: view.kind ?? 'refund',
          providerRefundId: view.providerRefundId ?? '',
          amount: view.amount,
          reason: view.reason,
          clicksTakenBack: view.clicksTakenBack,
          passTakenBack: view.passTakenBack,
          potTakenBack: view.potTakenBack,
          houseTakenBack: view.houseTakenBack,
          operatorLoss: view.operatorLoss,
        },
        ip,
      },
    );
    const how = view.kind === 'void' ? 'voided (the charge had not settled)' : 'refunded';
    return {
      message: `Purchase ${how}: ${formatEuroAmount(completed.amount_cents)} € back to the buyer, ${view.clicksTakenBack} clicks taken back.`,
      refund: view,
    };
  }

  /** Braintree gives the money back, once: what it already holds for the sale is looked at first. */
  private async returnMoney(purchase: Purchase): Promise<void> {
    const { db, payments } = this.deps;
    const transactionId = purchase.provider_transaction_id!;
    const unavailable = async (error: unknown) => {
      await releaseRefund(db, purchase.id, `provider: ${(error as Error).message}`);
      this.metrics.refunds.inc({ outcome: 'provider_unavailable' });
      return providerUnavailable((error as Error).message);
    };
    const refused = async (message: string) => {
      await markFailed(db, purchase.id, message);
      this.metrics.refunds.inc({ outcome: 'refused' });
      return new AppError(
        ERROR_CODE.PROVIDER_REFUSED,
        502,
        `Braintree refused the refund: ${message}. Nothing moved.`,
      );
    };

    let sale: ProviderSale | undefined;
    try {
      sale = await payments.findSale(transactionId);
    } catch (error) {
      throw await unavailable(error);
    }
    if (!sale) throw await refused(`Braintree has no transaction ${transactionId}`);
    let done = returnedAlready(sale);
    if (!done) {
      const kind = VOIDABLE.has(sale.status) ? 'void' : REFUNDABLE.has(sale.status) ? 'refund' : undefined;
      if (!kind) throw await refused(`the charge is ${sale.status} and can be neither voided nor refunded`);
      try {
        const result =
          kind === 'void' ? await payments.voidSale(transactionId) : await payments.refundSale(transactionId);
        if (result.kind === 'refused') throw await refused(result.message);
        done = { kind, refundId: kind === 'void' ? transactionId : result.transactionId };
      } catch (error) {
        if (error instanceof AppError) throw error;
        // No answer: the refund may have happened. Braintree's record of the sale says.
        const again = await payments.findSale(transactionId).catch(() => undefined);
        done = again && returnedAlready(again);
        if (!done) throw await unavailable(error);
      }
    }
    await markReturned(db, purchase.id, done);
  }

  /** The purchase as its purchase.completed event said (the game applies it first if it never arrived). */
  private async asCompleted(purchase: Purchase) {
    const pack = packById(purchase.pack_id as PackId);
    const shares = await purchaseShares(this.deps.db, purchase.id, ACCOUNTS);
    return {
      purchaseId: purchase.id,
      userId: purchase.user_id,
      packId: pack.id,
      clicks: pack.clicks,
      unlimited: pack.clicks === null,
      amountCents: purchase.amount_cents,
      potShareCents: shares.potShareCents,
      houseShareCents: shares.houseShareCents,
      transactionId: purchase.provider_transaction_id!,
    };
  }

  /**
   * One transaction: the pot gives back what the game took from the round's pot; the house the rest, as
   * far as it holds it beyond a house payout under way; what neither holds is the operator's loss. The
   * movement is posted and the refund completed together, once.
   */
  private async complete(purchase: Purchase, taken: InternalTakeBack): Promise<Refund> {
    const { db } = this.deps;
    const price = purchase.amount_cents;
    await db.transaction().execute(async (trx) => {
      // In the order a purchase's entries lock them (Braintree's, the pot, the house; a win takes the pot
      // before the winner's account): no lock cycle with a checkout completing meanwhile.
      await lockAccount(trx, ACCOUNTS.braintreeCashIn);
      await lockAccount(trx, ACCOUNTS.roundPot);
      await lockAccount(trx, ACCOUNTS.house);
      const potCents = Math.max(0, Math.min(taken.potCents, price, await balance(trx, ACCOUNTS.roundPot)));
      const reserved = (await pendingPayout(trx, ACCOUNTS.house))?.amount_cents ?? 0;
      const houseHeld = Math.max(0, (await balance(trx, ACCOUNTS.house)) - Number(reserved));
      const houseCents = Math.min(price - potCents, houseHeld);
      const lossCents = price - potCents - houseCents;
      const completed = await markCompleted(trx, purchase.id, {
        clicks: taken.clicks,
        pass: taken.pass,
        potCents,
        houseCents,
        lossCents,
      });
      if (!completed) return;
      await postMovement(trx, {
        kind: 'refund',
        reference: `refund:${purchase.id}`,
        entries: [
          { accountId: ACCOUNTS.braintreeCashIn, amountCents: price },
          { accountId: ACCOUNTS.roundPot, amountCents: -potCents },
          { accountId: ACCOUNTS.house, amountCents: -houseCents },
          { accountId: ACCOUNTS.refundLosses, amountCents: -lossCents },
        ],
      });
    });
    return (await getRefund(db, purchase.id))!;
  }
}
