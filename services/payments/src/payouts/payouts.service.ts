// Collecting: the whole balance of the winnings (or the house) account goes to the caller's PayPal
// email. The payout row is written first (one unfinished payout per account), PayPal is called with its
// id as sender_batch_id, and the balance is zeroed in the transaction that records the payout.
import {
  CURRENCY,
  EMAIL_NOT_VERIFIED,
  EMAIL_NOT_VERIFIED_MESSAGE,
  ERROR_CODE,
  makeEvent,
  PAYOUT_EMAIL_PENDING,
  PAYOUT_EMAIL_PENDING_COLLECT_MESSAGE,
  type InternalAccount,
  SUBJECTS,
  type CollectResponse,
} from '@omc/contracts';
import { AppError, conflict, enqueueEvent, forbidden } from '@omc/service-kit';
import type { ClawbacksService } from '../clawbacks/clawbacks.service.js';
import type { Deps } from '../deps.js';
import { ACCOUNTS, winningsAccount } from '../ledger/accounts.js';
import { balance, lockAccount, postMovement } from '../ledger/ledger.repo.js';
import type { PaymentsMetrics } from '../metrics.js';
import type { UsersService } from '../users/users.service.js';
import {
  abandonedPayouts,
  claimPayout,
  finishPayout,
  getPayee,
  insertPayout,
  pendingPayout,
  releasePayout,
  type Payout,
} from './payouts.repo.js';
import type { PayoutEmailService } from './payout-email.service.js';

/** PayPal refuses a reused sender_batch_id for 30 days; a payout still unknown after 29 is not sent again. */
export const PAYPAL_RESEND_WINDOW_MS = 29 * 24 * 3_600_000;

export const badGateway = (message: string) => new AppError(ERROR_CODE.PROVIDER_UNAVAILABLE, 502, message);

export class PayoutsService {
  constructor(
    private readonly deps: Deps,
    private readonly users: UsersService,
    private readonly metrics: PaymentsMetrics,
    private readonly nudgeOutbox: () => void,
    private readonly payoutEmail: PayoutEmailService,
    private readonly clawbacks: ClawbacksService,
  ) {}

  private get leaseMs() {
    const c = this.deps.config;
    // Every attempt with its timeout and backoff, and some slack.
    return (
      c.PAYPAL_MAX_ATTEMPTS * c.PAYPAL_TIMEOUT_MS + c.PAYPAL_RETRY_BASE_MS * 2 ** c.PAYPAL_MAX_ATTEMPTS + 5000
    );
  }

  /**
   * `account` is the caller as auth has it now (the source of truth), not the token's claims. Money
   * leaves only for an account whose email is verified (the house pot too: the admin's address is the
   * one a takeover would change); an auth that does not say counts as not verified.
   */
  async collect(
    account: Pick<InternalAccount, 'userId' | 'role' | 'emailVerified' | 'securityEpoch'>,
    kind: 'winnings' | 'house',
  ): Promise<CollectResponse> {
    const { userId } = account;
    if (kind === 'house' && account.role !== 'admin')
      throw forbidden('Admin only: only an admin can collect the house pot');
    if (account.emailVerified !== true)
      throw new AppError(EMAIL_NOT_VERIFIED, 403, EMAIL_NOT_VERIFIED_MESSAGE);
    const accountId = kind === 'house' ? ACCOUNTS.house : winningsAccount(userId);
    // Money goes only to a confirmed address: a newer one waiting for its link is confirmed first, so a
    // copy of the token that named an address of its own moves nothing (and no older address is paid by
    // surprise meanwhile).
    if (await this.payoutEmail.open(account))
      throw new AppError(PAYOUT_EMAIL_PENDING, 409, PAYOUT_EMAIL_PENDING_COLLECT_MESSAGE, 'paypalEmail');
    const paypalEmail = await getPayee(this.deps.db, userId);
    if (!paypalEmail)
      throw conflict(
        'No PayPal email is set: set one with POST /api/winners/setPaymentMethod before collecting',
        'paypalEmail',
      );

    // Winnings leave only once every purchase the winner made before the win is the house's for good
    // (settled, not disputed, not taken back): docs/payments.md, "Clawbacks and payout holds".
    const held =
      kind === 'winnings' && (await balance(this.deps.db, accountId)) > 0
        ? await this.clawbacks.payoutHold(userId, true)
        : null;
    if (held) {
      this.metrics.payouts.inc({ outcome: 'held' });
      throw new AppError(ERROR_CODE.PAYOUT_HELD, 409, held);
    }

    let resuming = false;
    const payout = await this.deps.db.transaction().execute(async (trx) => {
      // Collects on one account queue here; the first one decides, the others see its payout.
      await lockAccount(trx, accountId, kind === 'winnings' ? userId : null);
      const unfinished = await pendingPayout(trx, accountId);
      if (unfinished) {
        const resumed = await claimPayout(trx, unfinished.id, this.leaseMs);
        if (!resumed) throw conflict('A payout of this balance is already in progress; it will be paid once');
        resuming = true;
        return resumed;
      }
      const cents = await balance(trx, accountId);
      if (cents <= 0)
        throw conflict(
          kind === 'house'
            ? 'Nothing to collect: the house balance is 0'
            : 'Nothing to collect: your winnings balance is 0',
        );
      return insertPayout(trx, {
        userId,
        kind,
        accountId,
        amountCents: cents,
        paypalEmail,
        leaseMs: this.leaseMs,
      });
    });
    return this.pay(payout, resuming);
  }

  /**
   * Calls PayPal for a pending payout this caller holds, and records the outcome. `resumed`: an earlier
   * call may have reached PayPal, so only a VALIDATION_ERROR still proves nothing was paid.
   */
  private async pay(payout: Payout, resumed: boolean): Promise<CollectResponse> {
    if (resumed && this.deps.clock() - new Date(payout.created_at).getTime() > PAYPAL_RESEND_WINDOW_MS) {
      // PayPal refuses a reused sender_batch_id for 30 days only: past that, sending it again could pay
      // a second time. The payout stays pending, its balance reserved, for an operator to settle.
      await releasePayout(this.deps.db, payout.id, 'unknown at PayPal for 29 days: settle by hand', 0);
      this.deps.log.error({ payoutId: payout.id }, 'payout unknown at PayPal for 29 days: not sent again');
      throw badGateway(
        'This payout is being checked with PayPal by the operator. Your balance is intact and is paid once.',
      );
    }
    const outcome = await this.deps.payouts.payout({
      senderBatchId: payout.id,
      receiver: payout.paypal_email,
      amountCents: payout.amount_cents,
      currency: CURRENCY,
      note: payout.kind === 'house' ? 'One Million Clicks house pot' : 'One Million Clicks winnings',
      resumed,
    });
    if (outcome.kind === 'paid') {
      await this.deps.db.transaction().execute(async (trx) => {
        const finished = await finishPayout(trx, payout.id, {
          status: 'completed',
          providerBatchId: outcome.payoutBatchId,
          error: null,
          attempts: outcome.attempts,
        });
        if (!finished) return;
        await postMovement(trx, {
          kind: 'payout',
          reference: `payout:${payout.id}`,
          entries: [
            { accountId: payout.account_id, amountCents: -payout.amount_cents },
            { accountId: ACCOUNTS.paypalCashOut, amountCents: payout.amount_cents },
          ],
        });
        await enqueueEvent(
          trx,
          makeEvent(
            SUBJECTS.payoutCompleted,
            {
              payoutId: payout.id,
              userId: payout.user_id,
              kind: payout.kind,
              amountCents: payout.amount_cents,
              transactionId: outcome.payoutBatchId,
            },
            `payout-completed:${payout.id}`,
          ),
        );
      });
      this.metrics.payouts.inc({ outcome: 'completed' });
      this.nudgeOutbox();
      return { transactionId: outcome.payoutBatchId, amount: payout.amount_cents / 100 };
    }
    if (outcome.kind === 'refused') {
      await finishPayout(this.deps.db, payout.id, {
        status: 'failed',
        providerBatchId: null,
        error: outcome.message,
        attempts: outcome.attempts,
      });
      this.metrics.payouts.inc({ outcome: 'refused' });
      throw badGateway(
        `PayPal refused the payout: ${outcome.message}. Nothing was paid and your balance is intact.`,
      );
    }
    // Unknown: the payout stays pending (its balance reserved) and is finished with the same id.
    await releasePayout(this.deps.db, payout.id, outcome.message, outcome.attempts);
    this.metrics.payouts.inc({ outcome: 'unknown' });
    throw badGateway(
      `PayPal is unavailable (${outcome.message}). Your balance is intact; collecting again completes this payout and never pays twice.`,
    );
  }

  /** Finishes payouts left pending by a crash or an outage, with their original sender_batch_id. */
  async reconcilePending(): Promise<number> {
    let finished = 0;
    for (const payout of await abandonedPayouts(this.deps.db)) {
      const claimed = await claimPayout(this.deps.db, payout.id, this.leaseMs);
      if (!claimed) continue;
      try {
        await this.pay(claimed, true);
        finished++;
      } catch (error) {
        this.deps.log.warn(
          { payoutId: payout.id, err: (error as Error).message },
          'pending payout still not finished',
        );
      }
    }
    return finished;
  }
}
