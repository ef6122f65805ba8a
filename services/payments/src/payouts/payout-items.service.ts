// PayPal's item status of each paid payout, read back until final. A payout is paid (completed, posted)
// once PayPal has its batch, but its item can still fail or come back: FAILED, RETURNED (unclaimed for
// 30 days, or cancelled), REFUNDED by the recipient, REVERSED. Then the money goes back to the account it
// left (the winner's winnings or the house), with a `payout_return` movement and a `payout.returned`
// audit entry saying why. SUCCESS is final; PENDING, UNCLAIMED, ONHOLD and BLOCKED are read again on
// the next pass. docs/payments.md, "After the payout: PayPal's item status".
import type { Deps } from '../deps.js';
import { recordMoneyAudit } from '../audit/money-audit.repo.js';
import { ACCOUNTS } from '../ledger/accounts.js';
import { lockAccount, postMovement } from '../ledger/ledger.repo.js';
import type { PaymentsMetrics } from '../metrics.js';
import { PayPalUnavailable, type BatchState, type PayoutItemStatus } from '../providers/paypal.js';
import { markReturned, recordItemStatus, unfinishedItems } from './payout-items.repo.js';
import type { Payout } from './payouts.repo.js';

/** Item statuses whose money PayPal gives back (or never took): the ledger returns it to the account. */
export const RETURNED_ITEM_STATUSES: ReadonlySet<PayoutItemStatus> = new Set([
  'FAILED',
  'RETURNED',
  'REFUNDED',
  'REVERSED',
]);
/** Batches PayPal denied or cancelled as a whole: nothing of them is paid. */
const RETURNED_BATCH_STATUSES = new Set(['DENIED', 'CANCELED']);
/** How many paid payouts one pass reads back at most (the least recently read first). */
export const ITEMS_PER_PASS = 50;

export class PayoutItemsService {
  constructor(
    private readonly deps: Deps,
    private readonly metrics: PaymentsMetrics,
  ) {}

  /** One pass: reads back the items not final yet; returns how many payouts' money came back. */
  async reconcileItems(): Promise<number> {
    let returned = 0;
    for (const payout of await unfinishedItems(this.deps.db, ITEMS_PER_PASS)) {
      let state: BatchState;
      try {
        if (!payout.provider_batch_id) throw new Error('no payout_batch_id recorded');
        state = await this.deps.payouts.batchState(payout.provider_batch_id);
        if (state.senderBatchId !== null && state.senderBatchId !== payout.id)
          throw new Error(`batch ${state.payoutBatchId} carries another sender_batch_id`);
      } catch (error) {
        this.deps.log.warn(
          { payoutId: payout.id, err: (error as Error).message },
          "PayPal's item status of a paid payout could not be read; read again next pass",
        );
        // Read last next time. A PayPal that does not answer ends the pass: it is not asked 50 times
        // over while the money pass waits.
        await recordItemStatus(this.deps.db, payout.id, null);
        if (error instanceof PayPalUnavailable) break;
        continue;
      }
      const status = state.itemStatus ?? (RETURNED_BATCH_STATUSES.has(state.batchStatus) ? 'FAILED' : null);
      if (status && RETURNED_ITEM_STATUSES.has(status)) {
        if (await this.giveBack(payout, status, state)) returned++;
      } else {
        await recordItemStatus(this.deps.db, payout.id, status ?? 'PENDING');
      }
    }
    return returned;
  }

  /** Returns the payout's money to the account it left, once, with the reason; false when already done. */
  private async giveBack(payout: Payout, status: PayoutItemStatus, state: BatchState): Promise<boolean> {
    const reason =
      `PayPal reports the payout item ${status}${state.itemError ? ` (${state.itemError})` : ''}` +
      (state.batchStatus !== 'SUCCESS' ? `, batch ${state.batchStatus}` : '') +
      ': the money is back in the account it was paid from';
    const done = await this.deps.db.transaction().execute(async (trx) => {
      await lockAccount(trx, payout.account_id, payout.kind === 'winnings' ? payout.user_id : null);
      if (!(await markReturned(trx, payout.id, status))) return false;
      await postMovement(trx, {
        kind: 'payout_return',
        reference: `payout-return:${payout.id}`,
        entries: [
          { accountId: ACCOUNTS.paypalCashOut, amountCents: -payout.amount_cents },
          { accountId: payout.account_id, amountCents: payout.amount_cents },
        ],
      });
      await recordMoneyAudit(trx, {
        action: 'payout.returned',
        subjectId: payout.id,
        actorUserId: null,
        targetUserId: payout.user_id,
        ip: null,
        detail: {
          reason,
          itemStatus: status,
          itemError: state.itemError,
          batchStatus: state.batchStatus,
          payoutBatchId: state.payoutBatchId,
          accountId: payout.account_id,
          amountCents: payout.amount_cents,
        },
      });
      return true;
    });
    if (done) {
      this.metrics.payouts.inc({ outcome: 'returned' });
      this.deps.log.warn({ payoutId: payout.id, status }, reason);
    }
    return done;
  }
}
