// Refunding a purchase (an admin's decision): the money goes back through Braintree (a void while the
// sale is not settled, a refund once it is), once; then the game takes back what the purchase gave; then
// one transaction posts the ledger movement, completes the refund and writes its audit entry. Each step
// is recorded before the next, so whoever resumes the refund (the admin's request, or the background
// pass that finishes every unfinished refund) picks up where the last one stopped and never refunds twice.
import {
  ERROR_CODE,
  formatEuroAmount,
  type InternalTakeBack,
  type InternalTakeBackRequest,
  type RefundView,
  type PackId,
  packById,
} from '@omc/contracts';
import { AppError, conflict, forbidden, notFound, type Caller } from '@omc/service-kit';
import { recordMoneyAudit } from '../audit/money-audit.repo.js';
import { getClawback } from '../clawbacks/clawbacks.repo.js';
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
  unfinishedRefunds,
  type Refund,
} from './refunds.repo.js';

/** The steps of a refund, in order, as `onStep` names them (a test stops the refund at one: a crash). */
export type RefundStep = 'claimed' | 'provider-called' | 'returned' | 'taken-back' | 'completed';

/** Unfinished refunds one background pass resumes at most (the next pass takes the rest). */
const RESUME_BATCH = 50;

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
function returnedAlready(sale: ProviderSale): { kind: 'void' | 'refund'; refundIds: string[] } | undefined {
  if (sale.status === 'voided') return { kind: 'void', refundIds: [] };
  if (sale.refundIds.length > 0) return { kind: 'refund', refundIds: sale.refundIds };
  return undefined;
}

const cents = (amount: string) => Math.round(Number(amount) * 100);

/** A purchase the buyer's bank is disputing (or charged back): its money is the bank's to return. */
const DISPUTE_SETTLED_FOR_US = 'won';

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

  /** Called as each step is recorded (tests stop a refund there, as a crash would). */
  onStep: (step: RefundStep, purchaseId: string) => void = () => undefined;

  /**
   * `admin` is the caller as auth has it now. Answers the completed refund; throws 409 when the purchase
   * was refunded before, is being refunded by another request, or is disputed; 502 when Braintree did
   * not answer or refused (nothing recorded as moved); 503 when the money went back but the game could
   * not take back yet (the background pass finishes it).
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
    const clawback = await getClawback(db, purchaseId);
    if (clawback)
      throw new AppError(
        clawback.cause === 'dispute_lost' ? 'PURCHASE_DISPUTED' : ERROR_CODE.CONFLICT,
        409,
        `The provider already took this purchase's money back (${clawback.cause === 'dispute_lost' ? 'a dispute lost' : 'its settlement declined'}): its clicks and pot share are taken back by the clawback, so a refund would return it twice. Nothing was refunded.`,
      );
    const dispute = purchase.dispute_status;
    const started = await getRefund(db, purchaseId);
    if (dispute && dispute !== DISPUTE_SETTLED_FOR_US && (!started || started.status === 'failed'))
      throw new AppError(
        'PURCHASE_DISPUTED',
        409,
        `This purchase is disputed by the buyer's bank (dispute ${dispute}): the bank returns the money when the buyer wins the dispute (a chargeback), so a refund would return it twice. Nothing was refunded.`,
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
    const completed = await this.drive(purchase, claimed, caller);
    this.metrics.refunds.inc({ outcome: 'completed' });
    const view = refundView(completed);
    // A copy for auth's audit log, with the admin's token; the record is payments' own, written with
    // the completion.
    await recordInAuditLog(this.deps.internal, caller, {
      action: 'purchase.refunded',
      targetId: purchase.user_id,
      detail: auditDetail(purchase, view),
      ip,
    });
    const how = view.kind === 'void' ? 'voided (the charge had not settled)' : 'refunded';
    return {
      message: `Purchase ${how}: ${formatEuroAmount(completed.amount_cents)} € back to the buyer, ${view.clicksTakenBack} clicks taken back.`,
      refund: view,
    };
  }

  /**
   * One pass of the owner of unfinished refunds (at start and every RECONCILE_INTERVAL_MS): each refund
   * left `returning` or `returned` by a crash, a lost answer or the game away, whose lease has run out,
   * is driven to its end. Returns the refunds it completed.
   */
  async resumeUnfinished(): Promise<number> {
    const { db, log } = this.deps;
    let completed = 0;
    for (const waiting of await unfinishedRefunds(db, RESUME_BATCH)) {
      const claimed = await claimRefund(db, waiting.purchase_id, this.leaseMs);
      if (!claimed) continue;
      const purchase = (await getPurchase(db, claimed.purchase_id))!;
      try {
        await this.drive(purchase, claimed, undefined);
        completed += 1;
        this.metrics.refunds.inc({ outcome: 'completed' });
        log.info({ purchaseId: purchase.id }, 'unfinished refund completed in the background');
      } catch (error) {
        log.warn(
          { purchaseId: purchase.id, err: (error as Error).message },
          'unfinished refund not finished yet; next pass later',
        );
      }
    }
    return completed;
  }

  /**
   * The refund's state machine from where it stands to `completed`, under the lease its caller holds:
   * returning → (Braintree) → returned → (the game's take-back) → completed (ledger and audit entry).
   * `caller` is the refunding admin's request, when there is one.
   */
  private async drive(purchase: Purchase, refund: Refund, caller: Caller | undefined): Promise<Refund> {
    const { db } = this.deps;
    this.onStep('claimed', purchase.id);
    if (refund.status === 'returning') await this.returnMoney(purchase);
    this.onStep('returned', purchase.id);
    let taken: InternalTakeBack;
    try {
      taken = await this.game.takeBack(caller, await this.asCompleted(purchase));
    } catch (error) {
      await releaseRefund(db, purchase.id, `take-back: ${(error as Error).message}`);
      this.metrics.refunds.inc({ outcome: 'game_unavailable' });
      throw new AppError(
        'GAME_UNAVAILABLE',
        503,
        `The money went back to the buyer, but the game could not take back the clicks and the pot share yet (${(error as Error).message}). Payments finishes the refund by itself once the game answers (the purchase shows "refund in progress" until then); it will not refund twice.`,
      );
    }
    this.onStep('taken-back', purchase.id);
    const completed = await this.complete(purchase, taken);
    this.onStep('completed', purchase.id);
    return completed;
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
        done = { kind, refundIds: kind === 'void' ? [] : [result.transactionId] };
      } catch (error) {
        if (error instanceof AppError) throw error;
        // No answer: the refund may have happened. Braintree's record of the sale says.
        const again = await payments.findSale(transactionId).catch(() => undefined);
        done = again && returnedAlready(again);
        if (!done) throw await unavailable(error);
      }
    }
    this.onStep('provider-called', purchase.id);
    // What went back: a void returns the whole sale; refunds what each refund transaction carries (one
    // made at Braintree's console may be partial).
    let amountCents = purchase.amount_cents;
    if (done.kind === 'refund') {
      try {
        const credits = await Promise.all(done.refundIds.map((id) => payments.findSale(id)));
        amountCents = credits.reduce((sum, credit) => sum + (credit ? cents(credit.amount) : 0), 0);
      } catch (error) {
        throw await unavailable(error);
      }
    }
    await markReturned(db, purchase.id, {
      kind: done.kind,
      refundId: done.kind === 'void' ? transactionId : done.refundIds[0]!,
      amountCents: Math.min(amountCents, purchase.amount_cents),
    });
  }

  /** The purchase as its purchase.completed event said (the game applies it first if it never arrived). */
  async asCompleted(purchase: Purchase): Promise<InternalTakeBackRequest> {
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
   * One transaction: the pot gives back what the game took from the round's pot; the house the rest of
   * what Braintree refunded, as far as it holds it beyond a house payout under way (after a partial
   * refund smaller than the pot share, the house keeps the difference); what neither holds is the
   * operator's loss. The movement is posted, the refund completed and its audit entry written together,
   * once.
   */
  private async complete(purchase: Purchase, taken: InternalTakeBack): Promise<Refund> {
    const { db } = this.deps;
    await db.transaction().execute(async (trx) => {
      // In the order a purchase's entries lock them (Braintree's, the pot, the house; a win takes the pot
      // before the winner's account): no lock cycle with a checkout completing meanwhile.
      await lockAccount(trx, ACCOUNTS.braintreeCashIn);
      await lockAccount(trx, ACCOUNTS.roundPot);
      await lockAccount(trx, ACCOUNTS.house);
      const refund = (await getRefund(trx, purchase.id))!;
      const refunded = refund.amount_cents;
      const potCents = Math.max(
        0,
        Math.min(taken.potCents, purchase.amount_cents, await balance(trx, ACCOUNTS.roundPot)),
      );
      const reserved = (await pendingPayout(trx, ACCOUNTS.house))?.amount_cents ?? 0;
      const houseHeld = Math.max(0, (await balance(trx, ACCOUNTS.house)) - Number(reserved));
      const houseCents = Math.min(refunded - potCents, houseHeld);
      const lossCents = refunded - potCents - houseCents;
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
          { accountId: ACCOUNTS.braintreeCashIn, amountCents: refunded },
          { accountId: ACCOUNTS.roundPot, amountCents: -potCents },
          { accountId: ACCOUNTS.house, amountCents: -houseCents },
          { accountId: ACCOUNTS.refundLosses, amountCents: -lossCents },
        ],
      });
      const view = refundView((await getRefund(trx, purchase.id))!);
      await recordMoneyAudit(trx, {
        action: 'purchase.refunded',
        subjectId: purchase.id,
        actorUserId: refund.admin_user_id,
        targetUserId: purchase.user_id,
        ip: refund.admin_ip,
        detail: auditDetail(purchase, view),
      });
    });
    return (await getRefund(db, purchase.id))!;
  }
}

/** What the audit entry of a refund says. */
function auditDetail(purchase: Purchase, view: RefundView) {
  return {
    purchaseId: purchase.id,
    transactionId: purchase.provider_transaction_id ?? '',
    kind: view.kind ?? 'refund',
    providerRefundId: view.providerRefundId ?? '',
    amount: view.amount,
    reason: view.reason,
    clicksTakenBack: view.clicksTakenBack,
    passTakenBack: view.passTakenBack,
    potTakenBack: view.potTakenBack,
    houseTakenBack: view.houseTakenBack,
    operatorLoss: view.operatorLoss,
  };
}
