// One Fastify app serving both providers' APIs on one port, plus /healthz, /readyz and the test
// controls under /__emulator. Every answer says, in a header, that no money moves.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import {
  BraintreeState,
  braintreeRoutes,
  buildWebhook,
  CHARGED_STATUSES,
  WEBHOOK_KINDS,
  type WebhookKind,
} from './braintree/gateway.js';
import { Faults, type Fault, type FaultRequest, type FaultTarget } from './faults.js';
import { PayPalState, paypalRoutes } from './paypal/payouts.js';

export const NO_MONEY_HEADER = 'x-emulator-notice';
export const NO_MONEY_NOTICE = 'Local provider emulator: no real money moves.';

export interface EmulatorCall {
  at: string;
  target: FaultTarget;
  /** The idempotency key of the call: Braintree's order id, PayPal's sender_batch_id. */
  key: string | null;
  outcome: string;
}

export interface Emulator {
  app: FastifyInstance;
  braintree: BraintreeState;
  paypal: PayPalState;
  faults: Faults;
  calls: EmulatorCall[];
}

export interface EmulatorOptions {
  logger?: boolean | { level: string };
  /** The URL clients reach this emulator at (links in answers); defaults to the Host header. */
  publicUrl?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function buildEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const app = Fastify({
    logger: options.logger ?? false,
    forceCloseConnections: true,
    bodyLimit: 1024 * 1024,
  });
  const braintree = new BraintreeState();
  const paypal = new PayPalState();
  const faults = new Faults();
  const calls: EmulatorCall[] = [];
  let hostUrl = options.publicUrl ?? '';

  // The SDK sends Content-Type: application/json on bodiless calls (void): an empty body is {}.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body).trim();
    if (text === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      const error = new Error('Request body is not valid JSON') as Error & { statusCode: number };
      error.statusCode = 400;
      done(error, undefined);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    if (!options.publicUrl && request.headers.host) hostUrl = `http://${request.headers.host}`;
    reply.header(NO_MONEY_HEADER, NO_MONEY_NOTICE);
  });

  const record = (call: Omit<EmulatorCall, 'at'>) => {
    calls.push({ at: new Date().toISOString(), ...call });
    if (calls.length > 10_000) calls.splice(0, calls.length - 10_000);
  };

  const applyFault = async (
    target: FaultTarget,
    request: FastifyRequest,
    reply: FastifyReply,
    effect?: () => void,
    given?: Fault,
    key: string | null = null,
  ): Promise<boolean> => {
    const fault = given ?? faults.take(target);
    if (!fault || fault.kind === 'duplicate') return false;
    record({
      target,
      key,
      outcome: `injected ${fault.kind}${fault.kind === 'status' ? ` ${fault.status}` : ''}`,
    });
    if (fault.kind === 'status') {
      if (target.startsWith('paypal.')) {
        await reply.status(fault.status).send({
          name: fault.status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'INJECTED_ERROR',
          message: 'An internal server error has occurred (injected by the emulator).',
          debug_id: 'emulator',
        });
      } else {
        await reply.status(fault.status).header('content-type', 'application/xml; charset=utf-8').send('');
      }
      return true;
    }
    if (fault.kind === 'cut') {
      effect?.();
      reply.hijack();
      const status = target === 'paypal.payouts' ? 201 : 200;
      request.raw.socket.write(
        `HTTP/1.1 ${status} OK\r\ncontent-type: application/json\r\ncontent-length: 400\r\n\r\n{"batch_header":{"payout_ba`,
      );
      await sleep(20);
      request.raw.socket.destroy();
      return true;
    }
    if (fault.afterEffect) effect?.();
    reply.hijack();
    await sleep(fault.delayMs);
    request.raw.socket.destroy();
    return true;
  };

  app.get('/healthz', async () => ({ status: 'ok', notice: NO_MONEY_NOTICE }));
  app.get('/readyz', async () => ({ status: 'ready', notice: NO_MONEY_NOTICE }));

  await app.register(async (scope) =>
    braintreeRoutes(scope, { state: braintree, faults, publicUrl: () => hostUrl, record, applyFault }),
  );
  await app.register(async (scope) =>
    paypalRoutes(scope, { state: paypal, faults, publicUrl: () => hostUrl, record, applyFault }),
  );

  // Test controls.
  app.post('/__emulator/reset', async () => {
    braintree.reset();
    paypal.reset();
    faults.clear();
    calls.length = 0;
    return { reset: true };
  });
  app.post('/__emulator/faults', async (request, reply) => {
    try {
      faults.add((request.body ?? {}) as FaultRequest);
    } catch (error) {
      return reply.status(400).send({ message: (error as Error).message });
    }
    return { pending: faults.pending() };
  });
  app.get('/__emulator/faults', async () => ({ pending: faults.pending() }));
  app.get('/__emulator/calls', async () => ({ calls }));
  app.get('/__emulator/braintree/transactions', async (request) => {
    const { orderId } = request.query as { orderId?: string };
    const all = [...braintree.transactions.values()].filter(
      (t) => orderId === undefined || t.orderId === orderId,
    );
    return {
      transactions: all.map((t) => ({
        id: t.id,
        orderId: t.orderId,
        status: t.status,
        amount: t.amount,
        amountCents: t.amountCents,
        type: t.type,
        instrument: t.instrument,
        // A credit (a refund) gives money back: it is never a charge.
        charged: t.type === 'sale' && CHARGED_STATUSES.has(t.status),
        refundedCents: t.refundIds.reduce(
          (sum, id) => sum + (braintree.transactions.get(id)?.amountCents ?? 0),
          0,
        ),
        refundedTransactionId: t.refundedTransactionId,
      })),
    };
  });
  app.post('/__emulator/braintree/transactions/:id/settle', async (request, reply) => {
    const transaction = braintree.transactions.get((request.params as { id: string }).id);
    if (!transaction) return reply.status(404).send({ message: 'no such transaction' });
    if (transaction.status !== 'submitted_for_settlement' && transaction.status !== 'settling')
      return reply.status(409).send({ message: `cannot settle a ${transaction.status} transaction` });
    transaction.status = 'settled';
    transaction.updatedAt = new Date();
    transaction.statusHistory.push({
      status: 'settled',
      amount: transaction.amount,
      timestamp: transaction.updatedAt,
    });
    return { id: transaction.id, status: transaction.status };
  });
  app.post('/__emulator/braintree/webhooks', async (request, reply) => {
    const body = (request.body ?? {}) as {
      kind?: string;
      transactionId?: string;
      merchantId?: string;
      publicKey?: string;
      privateKey?: string;
    };
    if (!WEBHOOK_KINDS.includes(body.kind as WebhookKind))
      return reply.status(400).send({ message: `kind must be one of ${WEBHOOK_KINDS.join(', ')}` });
    const transaction = body.transactionId ? braintree.transactions.get(body.transactionId) : undefined;
    if (!transaction)
      return reply
        .status(404)
        .send({ message: "transactionId must name one of the emulator's transactions" });
    const keys =
      body.publicKey && body.privateKey
        ? { publicKey: body.publicKey, privateKey: body.privateKey }
        : braintree.keys.get(body.merchantId ?? transaction.merchantId);
    if (!keys)
      return reply
        .status(409)
        .send({ message: 'no keys known for this merchant: give publicKey and privateKey' });
    if (body.kind === 'transaction_settled' && transaction.status === 'submitted_for_settlement') {
      transaction.status = 'settled';
      transaction.updatedAt = new Date();
      transaction.statusHistory.push({
        status: 'settled',
        amount: transaction.amount,
        timestamp: transaction.updatedAt,
      });
    }
    return buildWebhook(transaction, body.kind as WebhookKind, keys);
  });
  app.get('/__emulator/paypal/payouts', async () => ({
    payouts: [...paypal.payouts.values()].map((p) => ({
      payoutBatchId: p.payoutBatchId,
      senderBatchId: p.senderBatchId,
      receiver: p.receiver,
      amount: p.amount,
      amountCents: p.amountCents,
      transactionId: p.transactionId,
    })),
  }));

  return { app, braintree, paypal, faults, calls };
}
