// The payout email's mail: payments owns the PayPal email and the request; auth owns the account's address
// and its mail. Payments asks over internal HTTP (never the bus), auth checks that the owner is at the
// keyboard (the current password or a recent sign-in) and queues the confirm mail to the account's email
// (its link minted by payments as the mail leaves: links.ts) and a notice to the previous and the new
// payout addresses.
import type { InternalPayoutEmailMail } from '@omc/contracts';
import type { AuthBase } from '../base.js';
import { queueMail } from '../mail/mail-queue.repo.js';
import { mailQuota } from '../mail/quota.js';
import { countRequest } from '../security/request-limit.js';
import type { LinkOrder } from '../mail/links.js';
import { renderMail, type MailKind, type MailParams } from '../mail/templates.js';
import type { AccountsService } from '../users/accounts.service.js';
import type { UserRow } from '../users/users.repo.js';

export class PayoutEmailService {
  constructor(
    private readonly base: AuthBase,
    private readonly accounts: AccountsService,
  ) {}

  async mailPayoutEmailConfirmation(
    user: UserRow,
    signedInAt: Date | null,
    request: InternalPayoutEmailMail,
  ): Promise<void> {
    await this.accounts.requireRecentAuth(user, signedInAt, request.currentPassword, request.ip);
    const { deps } = this.base;
    // Three mails per request, one to an address the caller chooses: under the quota of every user's mail.
    await countRequest(
      deps.redis,
      deps.config.RESET_WINDOW_MS,
      mailQuota(deps.config, {
        accountId: user.id,
        to: [user.email, request.previousPaypalEmail, request.newPaypalEmail],
      }),
    );
    const orders: { kind: MailKind; to: string; params: MailParams; link: LinkOrder | null }[] = [
      {
        kind: 'confirmPayoutEmail',
        to: user.email,
        params: { hours: request.expiresInHours, address: request.newPaypalEmail },
        link: { kind: 'confirmPayoutEmail', ref: request.requestId },
      },
    ];
    // Both payout addresses are told; an address that is also the account's gets the confirm link only.
    const told = new Set([user.email.toLowerCase()]);
    for (const to of [request.previousPaypalEmail, request.newPaypalEmail]) {
      if (!to || told.has(to.toLowerCase())) continue;
      told.add(to.toLowerCase());
      orders.push({
        kind: 'payoutEmailNotice',
        to,
        params: { address: request.newPaypalEmail },
        link: null,
      });
    }
    const now = deps.clock();
    await deps.db.transaction().execute(async (trx) => {
      for (const [i, order] of orders.entries()) {
        const eventId = `payout-email:${request.requestId}`;
        await queueMail(
          trx,
          {
            id: `${eventId}:${i}`,
            eventId,
            kind: order.kind,
            recipient: order.to,
            language: user.preferred_language,
            // The subject holds no secret; the body is rendered at send, with the link minted then.
            subject: renderMail(order.kind, user.preferred_language, order.params).subject,
            params: { ...order.params },
            link: order.link,
          },
          now,
        );
      }
    });
    this.base.mail.notify();
  }
}
