// For tests: start the emulator in this process on a free loopback port, and drive its test controls.
import { buildEmulator, type Emulator } from './app.js';
import type { FaultRequest } from './faults.js';

export interface RunningEmulator extends Emulator {
  url: string;
  port: number;
  client: EmulatorClient;
  stop(): Promise<void>;
}

export async function startEmulator(
  options: { port?: number; settleAfterMs?: number } = {},
): Promise<RunningEmulator> {
  const emulator = await buildEmulator({ settleAfterMs: options.settleAfterMs });
  const address = await emulator.app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
  const url = address.replace('localhost', '127.0.0.1');
  return {
    ...emulator,
    url,
    port: Number(new URL(url).port),
    client: new EmulatorClient(url),
    stop: () => emulator.app.close(),
  };
}

/** The test controls over HTTP, for an emulator running as its own process. */
export class EmulatorClient {
  constructor(readonly url: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as T & { message?: string };
    if (!response.ok) throw new Error(`emulator ${method} ${path}: ${response.status} ${json.message ?? ''}`);
    return json;
  }

  reset() {
    return this.call<{ reset: true }>('POST', '/__emulator/reset', {});
  }
  fault(request: FaultRequest) {
    return this.call<{ pending: Record<string, number> }>('POST', '/__emulator/faults', request);
  }
  async transactions(orderId?: string) {
    const query = orderId ? `?orderId=${encodeURIComponent(orderId)}` : '';
    return (
      await this.call<{
        transactions: {
          id: string;
          orderId: string | null;
          status: string;
          amount: string;
          amountCents: number;
          type: 'sale' | 'credit';
          charged: boolean;
          /** Cents given back by refunds of this sale. */
          refundedCents: number;
          refundedTransactionId: string | null;
        }[];
      }>('GET', `/__emulator/braintree/transactions${query}`)
    ).transactions;
  }
  async charges(orderId?: string) {
    return (await this.transactions(orderId)).filter((t) => t.charged);
  }
  async payouts() {
    return (
      await this.call<{
        payouts: {
          payoutBatchId: string;
          senderBatchId: string;
          receiver: string;
          amount: { value: string; currency: string };
          amountCents: number;
          transactionId: string;
          transactionStatus: string;
        }[];
      }>('GET', '/__emulator/paypal/payouts')
    ).payouts;
  }
  /** Sets a PayPal payout item's transaction status (RETURNED, UNCLAIMED...), by either batch id. */
  setPayoutStatus(batchId: string, status: string) {
    return this.call<{ payoutBatchId: string; transactionStatus: string }>(
      'POST',
      `/__emulator/paypal/payouts/${encodeURIComponent(batchId)}/status`,
      { status },
    );
  }
  async calls() {
    return (
      await this.call<{ calls: { target: string; key: string | null; outcome: string }[] }>(
        'GET',
        '/__emulator/calls',
      )
    ).calls;
  }
  /**
   * Settles a transaction submitted for settlement, as Braintree's batch does (a refund needs it); with
   * `settlement_declined`, the processor declines it at settlement instead.
   */
  settle(transactionId: string, outcome: 'settled' | 'settlement_declined' = 'settled') {
    return this.call<{ status: string }>(
      'POST',
      `/__emulator/braintree/transactions/${encodeURIComponent(transactionId)}/settle`,
      { outcome },
    );
  }
  /** Braintree's settlement batch: every sale submitted for settlement becomes settled. */
  settlementBatch() {
    return this.call<{ settled: string[] }>('POST', '/__emulator/braintree/settlement-batch', {});
  }
  webhook(kind: string, transactionId: string) {
    return this.call<{ bt_signature: string; bt_payload: string }>('POST', '/__emulator/braintree/webhooks', {
      kind,
      transactionId,
    });
  }
}
