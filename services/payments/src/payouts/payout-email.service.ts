// A new payout email is confirmed from the account's email before money can go there (docs/payments.md,
// "The payout email"). Payments records the request; auth checks that the owner is at the keyboard and
// queues the mails; as the confirm mail leaves, auth's mailer asks payments for the link's token, which
// payments mints then and keeps only its SHA-256 of (no token waits anywhere unhashed). Auth mails the link (to the account's email) and the notices (to the previous and the new
// payout address). The link is single-use, expires, and is spent by any security event of the account
// (auth's security epoch moved since it was minted).
import type { InternalAccount } from '@omc/contracts';
import { badRequest, type Caller } from '@omc/service-kit';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Deps } from '../deps.js';
import type { AuthPayoutMail } from '../users/auth-payout-mail.js';
import { getPayee, setPayee } from './payouts.repo.js';
import {
  cancelOtherPayoutEmailChanges,
  cancelPayoutEmailChange,
  deletePayoutEmailChange,
  insertPayoutEmailChange,
  markPayoutEmailConfirmed,
  openPayoutEmailChange,
  payoutEmailChangeByTokenHash,
  setPayoutEmailTokenHash,
  type PayoutEmailChange,
} from './payout-email.repo.js';

/** How long a confirmed, cancelled or expired request is kept (support questions), then deleted. */
export const PAYOUT_EMAIL_RETENTION_MS = 7 * 24 * 3_600_000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export const LINK_INVALID = 'This confirmation link is invalid, already used or expired. Nothing changed.';
export const LINK_SPENT =
  'This confirmation link no longer works: the account had a security change (a password, email or session change) since it was sent. Nothing changed; set the PayPal email again if you still want it.';

export class PayoutEmailService {
  constructor(
    private readonly deps: Deps,
    private readonly auth: AuthPayoutMail,
  ) {}

  private now(): Date {
    return new Date(this.deps.clock());
  }

  /**
   * Asks for `paypalEmail` as the caller's payout address: the request is recorded (so the link can be
   * minted as soon as auth's mail leaves), auth checks the password (or a recent sign-in) and queues the
   * mails; only then does it spend the account's earlier request (a refused one leaves that alive, and is
   * itself removed).
   */
  async request(
    account: InternalAccount,
    caller: Caller,
    input: { paypalEmail: string; currentPassword?: string; ip: string },
  ): Promise<void> {
    const paypalEmail = input.paypalEmail.trim();
    const id = randomUUID();
    const hours = this.deps.config.PAYOUT_EMAIL_CONFIRM_TTL_HOURS;
    const previous = await getPayee(this.deps.db, account.userId);
    const now = this.now();
    await insertPayoutEmailChange(
      this.deps.db,
      {
        id,
        userId: account.userId,
        paypalEmail,
        securityEpoch: account.securityEpoch ?? 0,
        expiresAt: new Date(now.getTime() + hours * 3_600_000),
      },
      now,
    );
    try {
      await this.auth.mail(caller, {
        requestId: id,
        newPaypalEmail: paypalEmail,
        previousPaypalEmail: previous,
        ...(input.currentPassword === undefined ? {} : { currentPassword: input.currentPassword }),
        expiresInHours: hours,
        ip: input.ip,
      });
    } catch (error) {
      await deletePayoutEmailChange(this.deps.db, id);
      throw error;
    }
    await cancelOtherPayoutEmailChanges(this.deps.db, account.userId, id, this.now());
  }

  /**
   * A fresh token for the request's link, as auth's mailer sends it: its hash replaces the one before, so
   * only the newest mail's link works. Undefined when the request may no longer be confirmed.
   */
  async mintToken(requestId: string): Promise<string | undefined> {
    const token = randomBytes(32).toString('base64url');
    return (await setPayoutEmailTokenHash(this.deps.db, requestId, hashToken(token), this.now()))
      ? token
      : undefined;
  }

  /** Makes the link's address the payout address, once; returns it. */
  async confirm(token: string): Promise<string> {
    const change = await payoutEmailChangeByTokenHash(this.deps.db, hashToken(token));
    const now = this.now();
    if (!change || change.confirmed_at || change.cancelled_at || change.expires_at <= now)
      throw badRequest(LINK_INVALID, 'token');
    const security = await this.auth.security(change.user_id);
    if (!security || security.suspended || security.securityEpoch !== change.security_epoch) {
      await cancelPayoutEmailChange(this.deps.db, change.id, now);
      throw badRequest(security ? LINK_SPENT : LINK_INVALID, 'token');
    }
    const confirmed = await this.deps.db.transaction().execute(async (trx) => {
      if (!(await markPayoutEmailConfirmed(trx, change.id, now))) return false;
      await setPayee(trx, change.user_id, change.paypal_email);
      return true;
    });
    if (!confirmed) throw badRequest(LINK_INVALID, 'token');
    return change.paypal_email;
  }

  /**
   * The caller's open request, if one still counts: one minted under another security epoch was spent by
   * a security event and is cancelled here.
   */
  async open(account: InternalAccount): Promise<PayoutEmailChange | undefined> {
    const now = this.now();
    const change = await openPayoutEmailChange(this.deps.db, account.userId, now);
    if (!change) return undefined;
    if (account.securityEpoch !== undefined && account.securityEpoch !== change.security_epoch) {
      await cancelPayoutEmailChange(this.deps.db, change.id, now);
      return undefined;
    }
    return change;
  }
}
