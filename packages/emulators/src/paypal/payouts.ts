// PayPal's REST API as this project calls it: OAuth2 client credentials (POST /v1/oauth2/token) and
// Payouts (POST /v1/payments/payouts, GET /v1/payments/payouts/:id). A sender_batch_id is paid once:
// reusing it answers PayPal's duplicate error with a link to the original batch.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderRouteOptions } from '../faults.js';

export interface EmulatedPayout {
  payoutBatchId: string;
  senderBatchId: string;
  clientId: string;
  receiver: string;
  amount: { value: string; currency: string };
  amountCents: number;
  note: string | null;
  senderItemId: string | null;
  payoutItemId: string;
  transactionId: string;
  createdAt: Date;
}

export class PayPalState {
  tokens = new Map<string, { clientId: string; expiresAt: number }>();
  payouts = new Map<string, EmulatedPayout>();
  bySenderBatchId = new Map<string, string>();
  reset() {
    this.tokens.clear();
    this.payouts.clear();
    this.bySenderBatchId.clear();
  }
}

const upperId = (length: number) => randomBytes(length).toString('hex').toUpperCase().slice(0, length);

function paypalError(
  reply: FastifyReply,
  status: number,
  name: string,
  message: string,
  details: { field?: string; issue: string; location?: string }[] = [],
  links: unknown[] = [],
) {
  return reply.status(status).send({
    name,
    message,
    debug_id: upperId(13).toLowerCase(),
    details,
    links,
    information_link: `https://developer.paypal.com/docs/api/payments.payouts-batch/#errors`,
  });
}

export interface PayPalOptions extends ProviderRouteOptions {
  state: PayPalState;
}

function batchView(payout: EmulatedPayout, publicUrl: string, detailed: boolean) {
  const header = {
    payout_batch_id: payout.payoutBatchId,
    batch_status: detailed ? 'SUCCESS' : 'PENDING',
    time_created: payout.createdAt.toISOString(),
    ...(detailed
      ? {
          time_completed: payout.createdAt.toISOString(),
          amount: payout.amount,
          fees: { currency: payout.amount.currency, value: '0.00' },
        }
      : {}),
    sender_batch_header: { sender_batch_id: payout.senderBatchId, email_subject: 'You have a payout!' },
  };
  const links = [
    {
      href: `${publicUrl}/v1/payments/payouts/${payout.payoutBatchId}`,
      rel: 'self',
      method: 'GET',
      encType: 'application/json',
    },
  ];
  if (!detailed) return { batch_header: header, links };
  return {
    batch_header: header,
    items: [
      {
        payout_item_id: payout.payoutItemId,
        transaction_id: payout.transactionId,
        transaction_status: 'SUCCESS',
        payout_batch_id: payout.payoutBatchId,
        payout_item_fee: { currency: payout.amount.currency, value: '0.00' },
        payout_item: {
          recipient_type: 'EMAIL',
          amount: payout.amount,
          note: payout.note,
          receiver: payout.receiver,
          sender_item_id: payout.senderItemId,
        },
        time_processed: payout.createdAt.toISOString(),
        links: [
          {
            href: `${publicUrl}/v1/payments/payouts-item/${payout.payoutItemId}`,
            rel: 'item',
            method: 'GET',
          },
        ],
      },
    ],
    links,
  };
}

export async function paypalRoutes(app: FastifyInstance, options: PayPalOptions): Promise<void> {
  const { state } = options;

  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    },
  );

  app.post('/v1/oauth2/token', async (request, reply) => {
    if (await options.applyFault('paypal.oauth', request, reply)) return reply;
    const match = /^Basic (.+)$/.exec(request.headers.authorization ?? '');
    const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
    const [clientId, secret] = [
      decoded.slice(0, decoded.indexOf(':')),
      decoded.slice(decoded.indexOf(':') + 1),
    ];
    if (!match || !clientId || !secret || decoded.indexOf(':') < 0) {
      return reply
        .status(401)
        .send({ error: 'invalid_client', error_description: 'Client Authentication failed' });
    }
    const grant = (request.body as Record<string, string> | undefined)?.grant_type;
    if (grant !== 'client_credentials') {
      return reply
        .status(400)
        .send({ error: 'unsupported_grant_type', error_description: 'Grant Type is NULL or not supported' });
    }
    const accessToken = `A21AA${randomBytes(24).toString('base64url')}`;
    const expiresIn = 32_400;
    state.tokens.set(accessToken, { clientId, expiresAt: Date.now() + expiresIn * 1000 });
    options.record({ target: 'paypal.oauth', key: clientId, outcome: 'ok' });
    return {
      scope: 'https://uri.paypal.com/services/payments/payouts https://uri.paypal.com/payments/payouts',
      access_token: accessToken,
      token_type: 'Bearer',
      app_id: `APP-${upperId(17)}`,
      expires_in: expiresIn,
      nonce: `${new Date().toISOString()}${randomBytes(8).toString('hex')}`,
    };
  });

  const authorize = (request: FastifyRequest, reply: FastifyReply): string | undefined => {
    const match = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
    const token = match ? state.tokens.get(match[1]!) : undefined;
    if (!token || token.expiresAt < Date.now()) {
      void reply
        .status(401)
        .send({ error: 'invalid_token', error_description: 'Token signature verification failed' });
      return undefined;
    }
    return token.clientId;
  };

  app.post('/v1/payments/payouts', async (request, reply) => {
    const clientId = authorize(request, reply);
    if (!clientId) return reply;
    const body = (request.body ?? {}) as {
      sender_batch_header?: { sender_batch_id?: unknown };
      items?: {
        recipient_type?: string;
        receiver?: unknown;
        amount?: { value?: unknown; currency?: unknown };
        note?: unknown;
        sender_item_id?: unknown;
      }[];
    };
    const senderBatchId = body.sender_batch_header?.sender_batch_id;
    if (typeof senderBatchId !== 'string' || senderBatchId.length === 0 || senderBatchId.length > 256) {
      return paypalError(reply, 400, 'VALIDATION_ERROR', 'Invalid request - see details.', [
        { field: 'sender_batch_header.sender_batch_id', location: 'body', issue: 'Required field missing' },
      ]);
    }
    const items = Array.isArray(body.items) ? body.items : [];
    if (items.length !== 1) {
      return paypalError(reply, 400, 'VALIDATION_ERROR', 'Invalid request - see details.', [
        { field: 'items', location: 'body', issue: 'This emulator takes exactly one item per batch' },
      ]);
    }
    const item = items[0]!;
    const value = typeof item.amount?.value === 'string' ? item.amount.value : '';
    const match = /^(\d{1,9})\.(\d{2})$/.exec(value);
    if (!match || Number(match[1]) * 100 + Number(match[2]) === 0) {
      return paypalError(reply, 400, 'VALIDATION_ERROR', 'Invalid request - see details.', [
        {
          field: 'items[0].amount.value',
          location: 'body',
          issue: 'Amount must be a positive value with two decimals',
        },
      ]);
    }
    if (
      typeof item.receiver !== 'string' ||
      item.receiver.length > 254 ||
      !/^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/.test(item.receiver)
    ) {
      return paypalError(reply, 400, 'VALIDATION_ERROR', 'Invalid request - see details.', [
        {
          field: 'items[0].receiver',
          location: 'body',
          issue: 'Receiver is invalid or does not match with type',
        },
      ]);
    }
    const currency = typeof item.amount?.currency === 'string' ? item.amount.currency : 'EUR';

    const duplicate = (existing: EmulatedPayout) =>
      paypalError(
        reply,
        400,
        'USER_BUSINESS_ERROR',
        'User business error.',
        [
          {
            field: 'SENDER_BATCH_ID',
            location: 'body',
            issue: `Batch with given sender_batch_id already exists`,
          },
        ],
        [
          {
            href: `${options.publicUrl()}/v1/payments/payouts/${existing.payoutBatchId}`,
            rel: 'self',
            method: 'GET',
            encType: 'application/json',
          },
        ],
      );

    const existingId = state.bySenderBatchId.get(senderBatchId);
    if (existingId) {
      options.record({ target: 'paypal.payouts', key: senderBatchId, outcome: 'duplicate' });
      return duplicate(state.payouts.get(existingId)!);
    }

    const payout: EmulatedPayout = {
      payoutBatchId: upperId(13),
      senderBatchId,
      clientId,
      receiver: item.receiver,
      amount: { value, currency },
      amountCents: Number(match[1]) * 100 + Number(match[2]),
      note: typeof item.note === 'string' ? item.note : null,
      senderItemId: typeof item.sender_item_id === 'string' ? item.sender_item_id : null,
      payoutItemId: upperId(13),
      transactionId: upperId(17),
      createdAt: new Date(),
    };
    const effect = () => {
      state.payouts.set(payout.payoutBatchId, payout);
      state.bySenderBatchId.set(senderBatchId, payout.payoutBatchId);
    };
    const fault = options.faults.take('paypal.payouts');
    if (fault?.kind === 'duplicate') {
      effect();
      options.record({ target: 'paypal.payouts', key: senderBatchId, outcome: 'duplicate (injected)' });
      return duplicate(payout);
    }
    if (fault && (await options.applyFault('paypal.payouts', request, reply, effect, fault, senderBatchId)))
      return reply;
    effect();
    options.record({ target: 'paypal.payouts', key: senderBatchId, outcome: 'paid' });
    return reply.status(201).send(batchView(payout, options.publicUrl(), false));
  });

  app.get('/v1/payments/payouts/:id', async (request, reply) => {
    if (!authorize(request, reply)) return reply;
    if (await options.applyFault('paypal.getBatch', request, reply)) return reply;
    const payout = state.payouts.get((request.params as { id: string }).id);
    if (!payout)
      return paypalError(reply, 404, 'RESOURCE_NOT_FOUND', 'The requested resource was not found.', [
        { issue: 'Batch not found' },
      ]);
    return batchView(payout, options.publicUrl(), true);
  });
}
