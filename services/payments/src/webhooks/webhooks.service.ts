// Braintree webhooks (settlement, disputes): verified by the SDK against our keys, applied once per payload.
import { createHash } from 'node:crypto';
import { badRequest } from '@omc/service-kit';
import type { Deps } from '../deps.js';
import { recordWebhook, setDisputeStatus, setSettlementStatus } from './webhooks.repo.js';

export interface WebhookOutcome {
  received: true;
  kind: string;
  duplicate: boolean;
}

type RequestLog = { warn(fields: object, message: string): void };

export class WebhooksService {
  constructor(private readonly deps: Deps) {}

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
      } else if (event.kind === 'dispute') {
        // A dispute is recorded on its purchase for an operator; money moves only by a new ledger movement.
        await setDisputeStatus(trx, event.transactionId, event.status);
        log.warn(
          { transactionId: event.transactionId, disputeId: event.disputeId, status: event.status },
          'Braintree dispute',
        );
      }
      return true;
    });
    return { received: true, kind: event.notification, duplicate: !applied };
  }
}
