// Braintree webhooks (settlement, disputes): verified by the SDK against our keys, applied once per payload.
// A declined settlement, or a dispute lost or accepted, starts the purchase's clawback in the transaction
// that records the notification, and the clawback is driven before the answer (docs/payments.md,
// "Clawbacks and payout holds").
import { createHash } from 'node:crypto';
import { badRequest } from '@omc/service-kit';
import type { ClawbacksService } from '../clawbacks/clawbacks.service.js';
import { DISPUTE_LOST } from '../clawbacks/clawbacks.repo.js';
import type { Deps } from '../deps.js';
import { recordWebhook, setDisputeStatus, setSettlementStatus } from './webhooks.repo.js';

export interface WebhookOutcome {
  received: true;
  kind: string;
  duplicate: boolean;
}

type RequestLog = { warn(fields: object, message: string): void };

export class WebhooksService {
  constructor(
    private readonly deps: Deps,
    private readonly clawbacks: ClawbacksService,
  ) {}

  /** `log` is the request's logger, so its lines carry the request id. */
  async receive(signature: string, payload: string, log: RequestLog): Promise<WebhookOutcome> {
    let event;
    try {
      event = await this.deps.payments.parseWebhook(signature, payload);
    } catch (error) {
      log.warn({ err: (error as Error).message }, 'webhook refused');
      throw badRequest('bt_signature does not verify this payload', 'bt_signature');
    }
    const id = createHash('sha256').update(payload.trim()).digest('hex');
    let clawback: string | undefined;
    const applied = await this.deps.db.transaction().execute(async (trx) => {
      const subjectId = event.kind === 'other' ? null : event.transactionId;
      if (!(await recordWebhook(trx, { id, kind: event.notification, subjectId }))) return false;
      if (event.kind === 'transaction') {
        const settlement =
          event.notification === 'transaction_settled'
            ? 'settled'
            : event.notification === 'transaction_settlement_declined'
              ? 'settlement_declined'
              : event.status;
        await setSettlementStatus(trx, event.transactionId, settlement);
        if (settlement === 'settlement_declined')
          clawback = await this.clawbacks.startFor(trx, event.transactionId, 'settlement_declined');
      } else if (event.kind === 'dispute') {
        // An open dispute holds the buyer's winnings; a lost (or accepted) one takes the purchase back.
        await setDisputeStatus(trx, event.transactionId, event.status);
        if (DISPUTE_LOST.has(event.status))
          clawback = await this.clawbacks.startFor(trx, event.transactionId, 'dispute_lost');
        log.warn(
          { transactionId: event.transactionId, disputeId: event.disputeId, status: event.status },
          'Braintree dispute',
        );
      }
      return true;
    });
    if (clawback) await this.clawbacks.settle(clawback);
    return { received: true, kind: event.notification, duplicate: !applied };
  }
}
