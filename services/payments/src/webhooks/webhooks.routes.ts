// Braintree webhooks (settlement, disputes): form-encoded bt_signature + bt_payload, verified by the
// SDK against our keys, applied once per payload.
import { createHash } from 'node:crypto';
import { badRequest } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Deps } from '../deps.js';

export async function webhookRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  app.post('/api/payments/webhooks/braintree', async (request) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const signature = typeof body.bt_signature === 'string' ? body.bt_signature : '';
    const payload = typeof body.bt_payload === 'string' ? body.bt_payload : '';
    if (!signature) throw badRequest('bt_signature is required', 'bt_signature');
    if (!payload) throw badRequest('bt_payload is required', 'bt_payload');
    let event;
    try {
      event = await deps.payments.parseWebhook(signature, payload);
    } catch (error) {
      request.log.warn({ err: (error as Error).message }, 'webhook refused');
      throw badRequest('bt_signature does not verify this payload', 'bt_signature');
    }
    const id = createHash('sha256').update(payload.trim()).digest('hex');
    const applied = await deps.db.transaction().execute(async (trx) => {
      const fresh = await trx
        .insertInto('webhook_events')
        .values({ id, kind: event.notification, subject_id: event.kind === 'other' ? null : event.transactionId })
        .onConflict((oc) => oc.column('id').doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!fresh) return false;
      if (event.kind === 'transaction') {
        const settlement = event.notification === 'transaction_settled' ? 'settled' : event.notification === 'transaction_settlement_declined' ? 'settlement_declined' : event.status;
        await trx.updateTable('purchases').set({ settlement_status: settlement, updated_at: sql`now()` }).where('provider_transaction_id', '=', event.transactionId).execute();
      } else if (event.kind === 'dispute') {
        // A dispute is recorded on its purchase for an operator; money moves only by a new ledger movement.
        await trx.updateTable('purchases').set({ dispute_status: event.status, updated_at: sql`now()` }).where('provider_transaction_id', '=', event.transactionId).execute();
        request.log.warn({ transactionId: event.transactionId, disputeId: event.disputeId, status: event.status }, 'Braintree dispute');
      }
      return true;
    });
    return { received: true, kind: event.notification, duplicate: !applied };
  });
}
