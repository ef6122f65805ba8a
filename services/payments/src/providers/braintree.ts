// The card side: the real braintree SDK, pointed at the local emulator or at Braintree itself.
import braintree from 'braintree';
import type { Config } from '../config.js';

export type PaymentEnvironment = 'emulator' | 'sandbox' | 'production';

/** A Braintree transaction as the checkout needs to see it. */
export interface ProviderTransaction {
  id: string;
  status: string;
  amount: string;
  orderId: string | null;
}

/** A sale as a refund needs to see it: its status and the refunds already made of it. */
export interface ProviderSale extends ProviderTransaction {
  refundIds: string[];
}

/** Braintree answered a void or a refund: done (with the transaction that gives the money back) or refused. */
export type ReturnResult = { kind: 'done'; transactionId: string } | { kind: 'refused'; message: string };

export type SaleResult =
  | { kind: 'approved'; transaction: ProviderTransaction }
  | { kind: 'declined'; transaction: ProviderTransaction | null; message: string }
  /** The provider answered, but refused the request itself (unknown or used nonce, bad amount). */
  | { kind: 'rejected'; message: string };

const APPROVED = new Set([
  'authorized',
  'authorizing',
  'submitted_for_settlement',
  'settling',
  'settled',
  'settlement_pending',
  'settlement_confirmed',
]);

export function isApproved(transaction: ProviderTransaction): boolean {
  return APPROVED.has(transaction.status);
}

export type WebhookEvent =
  | { kind: 'transaction'; notification: string; transactionId: string; status: string }
  | { kind: 'dispute'; notification: string; transactionId: string; disputeId: string; status: string }
  | { kind: 'other'; notification: string };

export interface PaymentGateway {
  environment: PaymentEnvironment;
  clientToken(): Promise<string>;
  /** Charges and submits for settlement; throws when the provider cannot be reached or times out. */
  sale(input: { amount: string; nonce: string; orderId: string }): Promise<SaleResult>;
  /** Every transaction carrying our order id (the purchase id): how an unanswered call is reconciled. */
  findByOrderId(orderId: string): Promise<ProviderTransaction[]>;
  void(transactionId: string): Promise<void>;
  /** The sale by its id; undefined when Braintree has no such transaction. Throws without an answer. */
  findSale(transactionId: string): Promise<ProviderSale | undefined>;
  /** Voids a sale not settled yet (nothing reaches the card). Throws without an answer. */
  voidSale(transactionId: string): Promise<ReturnResult>;
  /** Refunds a settled sale in full. Throws without an answer. */
  refundSale(transactionId: string): Promise<ReturnResult>;
  /** Verifies the signature and reads the notification; throws on a bad signature. */
  parseWebhook(signature: string, payload: string): Promise<WebhookEvent>;
}

function view(transaction: braintree.Transaction): ProviderTransaction {
  return {
    id: transaction.id,
    status: transaction.status,
    amount: transaction.amount,
    orderId: transaction.orderId ?? null,
  };
}

function refusal(result: braintree.ValidatedResponse<braintree.Transaction>): string {
  const errors = result.errors?.deepErrors?.() ?? [];
  return errors.map((e) => e.message).join(' ') || result.message;
}

/** The SDK's environment: the emulator's host and port, or Braintree's sandbox or production. */
function braintreeEnvironment(config: Config): braintree.Environment {
  if (config.BRAINTREE_ENVIRONMENT !== 'emulator')
    return config.BRAINTREE_ENVIRONMENT === 'production'
      ? braintree.Environment.Production
      : braintree.Environment.Sandbox;
  const url = new URL(config.BRAINTREE_EMULATOR_URL);
  const port = url.port || '80';
  return new braintree.Environment(
    url.hostname,
    port,
    `${url.protocol}//${url.host}`,
    false,
    url.hostname,
    port,
  );
}

/** Approved, declined (with the processor's or the gateway's reason) or rejected (the request refused). */
function saleResult(result: braintree.ValidatedResponse<braintree.Transaction>): SaleResult {
  if (result.success) return { kind: 'approved', transaction: view(result.transaction) };
  if (result.transaction) {
    const t = result.transaction;
    const reason =
      t.status === 'gateway_rejected'
        ? `rejected by the gateway (${t.gatewayRejectionReason ?? 'unknown reason'})`
        : `${t.processorResponseText || result.message} (code ${t.processorResponseCode})`;
    return { kind: 'declined', transaction: view(t), message: reason };
  }
  return { kind: 'rejected', message: refusal(result) };
}

/** Every transaction with this order id, read from the SDK's search stream. */
function searchByOrderId(
  gateway: braintree.BraintreeGateway,
  orderId: string,
): Promise<ProviderTransaction[]> {
  return new Promise((resolve, reject) => {
    const found: ProviderTransaction[] = [];
    const stream = gateway.transaction.search((search) =>
      search.orderId().is(orderId),
    ) as unknown as NodeJS.ReadableStream;
    stream.on('data', (t: braintree.Transaction) => found.push(view(t)));
    stream.on('end', () => resolve(found));
    stream.on('error', reject);
  });
}

type Notification = braintree.WebhookNotification & {
  transaction?: braintree.Transaction;
  dispute?: braintree.Dispute & { transactionDetails?: { id: string }; transaction?: { id: string } };
};

/** What a verified notification says: a transaction's new status, a dispute's, or another kind. */
function webhookEvent(notification: Notification): WebhookEvent {
  if (notification.kind.startsWith('transaction_') && notification.transaction) {
    return {
      kind: 'transaction',
      notification: notification.kind,
      transactionId: notification.transaction.id,
      status: notification.transaction.status,
    };
  }
  if (notification.kind.startsWith('dispute_') && notification.dispute) {
    const dispute = notification.dispute;
    const transactionId = dispute.transactionDetails?.id ?? dispute.transaction?.id ?? '';
    return {
      kind: 'dispute',
      notification: notification.kind,
      transactionId,
      disputeId: dispute.id,
      status: String(dispute.status),
    };
  }
  return { kind: 'other', notification: notification.kind };
}

export function createBraintreeGateway(config: Config): PaymentGateway {
  const gateway = new braintree.BraintreeGateway({
    environment: braintreeEnvironment(config),
    merchantId: config.BRAINTREE_MERCHANT_ID,
    publicKey: config.BRAINTREE_PUBLIC_KEY,
    privateKey: config.BRAINTREE_PRIVATE_KEY,
  });
  (gateway as unknown as { config: { timeout: number } }).config.timeout = config.BRAINTREE_TIMEOUT_MS;

  return {
    environment: config.BRAINTREE_ENVIRONMENT,

    async clientToken() {
      const response = await gateway.clientToken.generate({});
      if (!response.success) throw new Error(`client token refused: ${response.message}`);
      return response.clientToken;
    },

    async sale({ amount, nonce, orderId }) {
      return saleResult(
        await gateway.transaction.sale({
          amount,
          paymentMethodNonce: nonce,
          orderId,
          options: { submitForSettlement: true },
        }),
      );
    },

    async findByOrderId(orderId) {
      return searchByOrderId(gateway, orderId);
    },

    async void(transactionId) {
      await gateway.transaction.void(transactionId);
    },

    async findSale(transactionId) {
      try {
        const t = await gateway.transaction.find(transactionId);
        return { ...view(t), refundIds: t.refundIds ?? [] };
      } catch (error) {
        if ((error as { type?: string }).type === 'notFoundError') return undefined;
        throw error;
      }
    },

    async voidSale(transactionId) {
      const result = await gateway.transaction.void(transactionId);
      if (result.success) return { kind: 'done', transactionId: result.transaction.id };
      return { kind: 'refused', message: refusal(result) };
    },

    async refundSale(transactionId) {
      const result = await gateway.transaction.refund(transactionId);
      if (result.success) return { kind: 'done', transactionId: result.transaction.id };
      return { kind: 'refused', message: refusal(result) };
    },

    async parseWebhook(signature, payload) {
      return webhookEvent((await gateway.webhookNotification.parse(signature, payload)) as Notification);
    },
  };
}
