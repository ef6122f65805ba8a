// The payout email's mail: payments owns the PayPal email and mints the confirm token (it keeps only its
// hash); auth owns the account's address and its mail. Payments asks over internal HTTP (never the bus),
// auth checks that the owner is at the keyboard (the current password or a recent sign-in) and queues the
// confirm link to the account's email and a notice to the previous and the new payout addresses.
import type { InternalPayoutEmailMail } from '@omc/contracts';
import type { AuthContext } from '../context.js';
import { webLink } from '../mail/consumer.js';
import { queueMail } from '../mail/queue.js';
import { renderMail, type MailKind, type MailParams } from '../mail/templates.js';
import { requireRecentAuth } from '../users/accounts.service.js';
import type { UserRow } from '../users/users.repo.js';

export async function mailPayoutEmailConfirmation(
  ctx: AuthContext,
  user: UserRow,
  signedInAt: Date | null,
  request: InternalPayoutEmailMail,
): Promise<void> {
  await requireRecentAuth(ctx, user, signedInAt, request.currentPassword, request.ip);
  const { deps } = ctx;
  const orders: { kind: MailKind; to: string; params: MailParams }[] = [
    {
      kind: 'confirmPayoutEmail',
      to: user.email,
      params: {
        link: webLink(deps, '/confirm-payout-email', request.token),
        hours: request.expiresInHours,
        address: request.newPaypalEmail,
      },
    },
  ];
  // Both payout addresses are told; an address that is also the account's gets the confirm link only.
  const told = new Set([user.email.toLowerCase()]);
  for (const to of [request.previousPaypalEmail, request.newPaypalEmail]) {
    if (!to || told.has(to.toLowerCase())) continue;
    told.add(to.toLowerCase());
    orders.push({ kind: 'payoutEmailNotice', to, params: { address: request.newPaypalEmail } });
  }
  const now = deps.clock();
  await deps.db.transaction().execute(async (trx) => {
    for (const [i, order] of orders.entries()) {
      const mail = renderMail(order.kind, user.preferred_language, order.params);
      const eventId = `payout-email:${request.requestId}`;
      await queueMail(
        trx,
        { id: `${eventId}:${i}`, eventId, kind: order.kind, recipient: order.to, ...mail },
        now,
      );
    }
  });
  ctx.mail.nudge();
}
