// Clawbacks: when Braintree takes a purchase's money back (its settlement declined, a dispute lost or
// accepted), the game takes back what the purchase gave through the refunds' take-back (the buyer's
// unspent clicks of the round, the pass, the pot share while the round is in play), and one transaction
// posts what came back and, apart, the house's loss for what was already spent or won, completes the
// clawback and writes its audit entry. Started in the transaction that records the notification (or the
// settlement pass's read of the sale), driven at once, and by every money pass until done.
import { type ClawbackView, type InternalTakeBack, type PackId, packById } from '@omc/contracts';
import { recordMoneyAudit } from '../audit/money-audit.repo.js';
import { getPurchase, type Purchase } from '../checkout/purchases.repo.js';
import type { ClawbackCause } from '../db/schema.js';
import type { Deps } from '../deps.js';
import { ACCOUNTS } from '../ledger/accounts.js';
import { balance, lockAccount, postMovement } from '../ledger/ledger.repo.js';
import { pendingPayout } from '../payouts/payouts.repo.js';
import type { GameTakeBack } from '../refunds/game-take-back.js';
import { getRefund, purchaseShares } from '../refunds/refunds.repo.js';
import type { RefundsService } from '../refunds/refunds.service.js';
import {
  getClawback,
  markClawbackCompleted,
  noteClawbackAttempt,
  purchaseByTransaction,
  purchasesHoldingPayout,
  setPurchaseSettlement,
  SETTLED,
  startClawback,
  unfinishedClawbacks,
  unsettledPurchasesOfWinners,
  type Clawback,
  type HoldingPurchase,
} from './clawbacks.repo.js';

/** Clawbacks, and sales read from Braintree, one money pass works at most (the next pass takes the rest). */
const PASS_BATCH = 50;

/** Unsettled sales a collect reads from Braintree before it decides (the settlement pass reads the rest). */
const COLLECT_READS = 10;

/** Why a winner's collect is held, for them and for the admins; null when nothing holds it. */
export function holdReason(purchases: HoldingPurchase[]): string | null {
  if (purchases.length === 0) return null;
  const clawedBack = purchases.filter((p) => p.clawed_back).length;
  const disputed = purchases.filter(
    (p) => !p.clawed_back && p.dispute_status !== null && p.dispute_status !== 'won',
  ).length;
  const unsettled = purchases.length - clawedBack - disputed;
  const parts: string[] = [];
  if (clawedBack > 0)
    parts.push(
      `the card's bank took back the money of ${clawedBack === 1 ? 'a purchase' : `${clawedBack} purchases`} of yours made before your win, so your winnings stay held until an operator reviews them`,
    );
  if (disputed > 0)
    parts.push(
      `the card's bank is disputing ${disputed === 1 ? 'a purchase' : `${disputed} purchases`} of yours made before your win, so your winnings stay held until the dispute ends`,
    );
  if (unsettled > 0)
    parts.push(
      `${unsettled === 1 ? 'a purchase' : `${unsettled} purchases`} of yours made before your win ${unsettled === 1 ? 'has' : 'have'} not settled with the card's bank yet (usually within a day); collect again once ${unsettled === 1 ? 'it has' : 'they have'}`,
    );
  const text = parts.join('; and ');
  return `Your winnings are held: ${text}. Nothing was moved.`;
}

export function clawbackView(clawback: Clawback): ClawbackView {
  const euros = (cents: number | null) => (cents ?? 0) / 100;
  return {
    cause: clawback.cause,
    status: clawback.status,
    amount: euros(clawback.amount_cents),
    clicksTakenBack: clawback.clicks_taken ?? 0,
    clicksSpent: clawback.clicks_spent ?? 0,
    passTakenBack: clawback.pass_taken ?? false,
    potTakenBack: euros(clawback.pot_cents),
    houseTakenBack: euros(clawback.house_cents),
    houseLoss: euros(clawback.loss_cents),
    operatorLoss: euros(clawback.uncovered_cents),
    createdAt: new Date(clawback.created_at).toISOString(),
    completedAt: clawback.completed_at ? new Date(clawback.completed_at).toISOString() : null,
  };
}

/** What the game gave back when nothing is left to take (a refund took it back before). */
const NOTHING_TAKEN = { round: 0, roundInPlay: false, clicks: 0, pass: false, potCents: 0 };

export class ClawbacksService {
  constructor(
    private readonly deps: Deps,
    private readonly game: GameTakeBack,
    private readonly refunds: RefundsService,
  ) {}

  /**
   * Starts the clawback of the purchase Braintree's transaction paid for, in the caller's transaction;
   * the purchase's id when one was started now (drive it once the transaction commits).
   */
  async startFor(
    trx: Parameters<typeof startClawback>[0],
    transactionId: string,
    cause: ClawbackCause,
  ): Promise<string | undefined> {
    const purchase = await purchaseByTransaction(trx, transactionId);
    if (!purchase || purchase.status !== 'succeeded') return undefined;
    const row = await startClawback(trx, {
      purchaseId: purchase.id,
      cause,
      amountCents: purchase.amount_cents,
    });
    return row.status === 'taking_back' ? purchase.id : undefined;
  }

  /**
   * Why the winner's collect is held now, or null. `read`: the unsettled sales are read from Braintree
   * first (at most COLLECT_READS), so a sale that settled a moment ago releases the collect at once.
   */
  async payoutHold(userId: string, read: boolean): Promise<string | null> {
    let holding = await purchasesHoldingPayout(this.deps.db, userId);
    const unread = holding.filter(
      (p) => !p.clawed_back && !SETTLED.includes(p.settlement_status as (typeof SETTLED)[number]),
    );
    if (read && unread.length > 0) {
      await this.readSettlements(unread.slice(0, COLLECT_READS));
      holding = await purchasesHoldingPayout(this.deps.db, userId);
    }
    return holdReason(holding);
  }

  /** Drives a clawback to its end now; false (the reason noted, the next pass tries again) when it cannot. */
  async settle(purchaseId: string): Promise<boolean> {
    try {
      await this.drive(purchaseId);
      return true;
    } catch (error) {
      await noteClawbackAttempt(this.deps.db, purchaseId, (error as Error).message);
      this.deps.log.warn(
        { purchaseId, err: (error as Error).message },
        'clawback not finished yet; the next money pass tries again',
      );
      return false;
    }
  }

  /** One pass: every unfinished clawback is driven; then the winners' unsettled sales are read again. */
  async pass(): Promise<void> {
    for (const waiting of await unfinishedClawbacks(this.deps.db, PASS_BATCH))
      await this.settle(waiting.purchase_id);
    await this.readSettlements(await unsettledPurchasesOfWinners(this.deps.db, PASS_BATCH));
  }

  /**
   * Reads each sale's status from Braintree (the settlement a webhook may never report: Braintree sends
   * none for cards) and records it; a declined settlement starts and drives its clawback. A sale Braintree
   * does not answer for keeps its status; the next read tries again.
   */
  async readSettlements(purchases: { id: string; provider_transaction_id: string | null }[]): Promise<void> {
    const { db, payments, log } = this.deps;
    for (const purchase of purchases) {
      if (!purchase.provider_transaction_id) continue;
      let status: string | undefined;
      try {
        status = (await payments.findSale(purchase.provider_transaction_id))?.status;
      } catch (error) {
        log.warn({ purchaseId: purchase.id, err: (error as Error).message }, 'settlement not read');
        continue;
      }
      if (!status) continue;
      const started = await db.transaction().execute(async (trx) => {
        await setPurchaseSettlement(trx, purchase.id, status);
        return status === 'settlement_declined'
          ? this.startFor(trx, purchase.provider_transaction_id!, 'settlement_declined')
          : undefined;
      });
      if (started) await this.settle(started);
    }
  }

  /** taking_back → (the game's take-back) → completed with its ledger movements and audit entry. */
  private async drive(purchaseId: string): Promise<void> {
    const { db } = this.deps;
    const clawback = await getClawback(db, purchaseId);
    if (!clawback || clawback.status === 'completed') return;
    const purchase = (await getPurchase(db, purchaseId))!;
    const refund = await getRefund(db, purchaseId);
    if (refund && (refund.status === 'returning' || refund.status === 'returned'))
      throw new Error(`a refund of this purchase is ${refund.status}; the clawback waits for its end`);
    // A refund completed before: its clicks and pot share were taken back then; Braintree took the price
    // a second time, all of it the house's loss.
    const taken: Omit<InternalTakeBack, 'purchaseId'> =
      refund?.status === 'completed'
        ? NOTHING_TAKEN
        : await this.game.takeBack(undefined, await this.refunds.asCompleted(purchase));
    await this.complete(purchase, clawback, taken);
  }

  /**
   * One transaction, in the order a purchase's entries lock their accounts: `clawback:<id>` gives
   * Braintree back what the game took back (the pot share from the pot, the house's share of the unspent
   * clicks from the house); `clawback-loss:<id>` gives it the rest, the value of what was spent or won,
   * from the house as far as it holds it beyond a house payout under way, and from the operator
   * (external:clawback-losses) beyond that.
   */
  private async complete(
    purchase: Purchase,
    clawback: Clawback,
    taken: Omit<InternalTakeBack, 'purchaseId'>,
  ): Promise<void> {
    const pack = packById(purchase.pack_id as PackId);
    await this.deps.db.transaction().execute(async (trx) => {
      await lockAccount(trx, ACCOUNTS.braintreeCashIn);
      await lockAccount(trx, ACCOUNTS.roundPot);
      await lockAccount(trx, ACCOUNTS.house);
      const price = clawback.amount_cents;
      const shares = await purchaseShares(trx, purchase.id, ACCOUNTS);
      const unspent = pack.clicks === null ? (taken.pass ? 1 : 0) : Math.min(1, taken.clicks / pack.clicks);
      const potCents = Math.max(0, Math.min(taken.potCents, price, await balance(trx, ACCOUNTS.roundPot)));
      const reserved = Number((await pendingPayout(trx, ACCOUNTS.house))?.amount_cents ?? 0);
      const houseHeld = Math.max(0, (await balance(trx, ACCOUNTS.house)) - reserved);
      const houseCents = Math.min(Math.floor(shares.houseShareCents * unspent), houseHeld, price - potCents);
      const lossCents = price - potCents - houseCents;
      const houseLoss = Math.min(lossCents, houseHeld - houseCents);
      const figures = {
        clicksTaken: taken.clicks,
        clicksSpent: pack.clicks === null ? 0 : pack.clicks - taken.clicks,
        passTaken: taken.pass,
        potCents,
        houseCents,
        lossCents,
        uncoveredCents: lossCents - houseLoss,
      };
      if (!(await markClawbackCompleted(trx, purchase.id, figures))) return;
      await postMovement(trx, {
        kind: 'clawback',
        reference: `clawback:${purchase.id}`,
        entries: [
          { accountId: ACCOUNTS.braintreeCashIn, amountCents: potCents + houseCents },
          { accountId: ACCOUNTS.roundPot, amountCents: -potCents },
          { accountId: ACCOUNTS.house, amountCents: -houseCents },
        ],
      });
      await postMovement(trx, {
        kind: 'clawback',
        reference: `clawback-loss:${purchase.id}`,
        entries: [
          { accountId: ACCOUNTS.braintreeCashIn, amountCents: lossCents },
          { accountId: ACCOUNTS.house, amountCents: -houseLoss },
          { accountId: ACCOUNTS.clawbackLosses, amountCents: -figures.uncoveredCents },
        ],
      });
      await recordMoneyAudit(trx, {
        action: 'purchase.clawed_back',
        subjectId: purchase.id,
        actorUserId: null,
        targetUserId: purchase.user_id,
        ip: null,
        detail: {
          purchaseId: purchase.id,
          transactionId: purchase.provider_transaction_id ?? '',
          cause: clawback.cause,
          amount: price / 100,
          roundInPlay: taken.roundInPlay,
          ...figures,
        },
      });
    });
  }
}
