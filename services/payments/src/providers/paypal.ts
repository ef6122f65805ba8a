// PayPal Payouts over its REST API: OAuth2 client credentials, then one batch per payout whose
// sender_batch_id is our payout id. 5xx answers and timeouts are retried with the same id (PayPal pays
// a sender_batch_id once); a duplicate answer means an earlier attempt landed, and points at its batch.
import type { Logger } from 'pino';
import { formatEuroAmount } from '@omc/contracts';

export type PayoutOutcome =
  | { kind: 'paid'; payoutBatchId: string; attempts: number }
  /** PayPal refused it for good (a 4xx): nothing was paid. */
  | { kind: 'refused'; message: string; attempts: number }
  /** No answer we can rely on after every attempt: maybe paid, maybe not; retry later with the same id. */
  | { kind: 'unavailable'; message: string; attempts: number };

export interface PayoutRequest {
  senderBatchId: string;
  receiver: string;
  amountCents: number;
  currency: string;
  note: string;
}

export interface PayoutsClient {
  payout(request: PayoutRequest): Promise<PayoutOutcome>;
}

export interface PayPalOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  log: Logger;
}

class RetryableError extends Error {}

interface PayPalError {
  name?: string;
  message?: string;
  details?: { field?: string; issue?: string }[];
  links?: { href?: string; rel?: string }[];
}

export function createPayPalClient(options: PayPalOptions): PayoutsClient {
  let cached: { token: string; expiresAt: number } | undefined;

  const accessToken = async (): Promise<string> => {
    if (cached && cached.expiresAt > Date.now()) return cached.token;
    let response: Response;
    try {
      response = await fetch(`${options.baseUrl}/v1/oauth2/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: 'grant_type=client_credentials',
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      throw new RetryableError(`PayPal OAuth did not answer: ${(error as Error).message}`);
    }
    if (response.status >= 500 || response.status === 429) throw new RetryableError(`PayPal OAuth answered ${response.status}`);
    if (!response.ok) throw new Error(`PayPal refused our credentials (${response.status})`);
    const body = (await response.json()) as { access_token: string; expires_in: number };
    cached = { token: body.access_token, expiresAt: Date.now() + Math.max(body.expires_in - 60, 30) * 1000 };
    return cached.token;
  };

  const getBatch = async (batchId: string): Promise<string> => {
    const response = await fetch(`${options.baseUrl}/v1/payments/payouts/${encodeURIComponent(batchId)}`, {
      headers: { authorization: `Bearer ${await accessToken()}`, accept: 'application/json' },
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    if (!response.ok) throw new RetryableError(`PayPal batch lookup answered ${response.status}`);
    const body = (await response.json()) as { batch_header: { payout_batch_id: string } };
    return body.batch_header.payout_batch_id;
  };

  const attempt = async (request: PayoutRequest): Promise<{ kind: 'paid'; payoutBatchId: string } | { kind: 'refused'; message: string }> => {
    const token = await accessToken();
    let response: Response;
    try {
      response = await fetch(`${options.baseUrl}/v1/payments/payouts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          sender_batch_header: { sender_batch_id: request.senderBatchId, email_subject: 'One Million Clicks payout', recipient_type: 'EMAIL' },
          items: [
            {
              recipient_type: 'EMAIL',
              amount: { value: formatEuroAmount(request.amountCents), currency: request.currency },
              receiver: request.receiver,
              note: request.note,
              sender_item_id: request.senderBatchId,
            },
          ],
        }),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      throw new RetryableError(`PayPal did not answer: ${(error as Error).message}`);
    }
    if (response.status === 201 || response.status === 200) {
      const body = (await response.json()) as { batch_header: { payout_batch_id: string } };
      return { kind: 'paid', payoutBatchId: body.batch_header.payout_batch_id };
    }
    if (response.status === 401) {
      cached = undefined;
      throw new RetryableError('PayPal token expired');
    }
    if (response.status >= 500 || response.status === 429 || response.status === 408) throw new RetryableError(`PayPal answered ${response.status}`);
    const error = (await response.json().catch(() => ({}))) as PayPalError;
    const duplicate = error.details?.some((d) => d.field?.toUpperCase() === 'SENDER_BATCH_ID');
    if (duplicate) {
      // An earlier attempt with this sender_batch_id landed: PayPal links its batch. Only its id is
      // taken from the link; the lookup goes to our configured host.
      const href = error.links?.find((l) => l.rel === 'self')?.href ?? error.links?.[0]?.href ?? '';
      const batchId = href.split('/').filter(Boolean).pop();
      options.log.warn({ senderBatchId: request.senderBatchId, batchId }, 'PayPal already has this sender_batch_id: an earlier attempt landed');
      return { kind: 'paid', payoutBatchId: batchId ? await getBatch(batchId) : request.senderBatchId };
    }
    const detail = error.details?.map((d) => d.issue).filter(Boolean).join('; ');
    return { kind: 'refused', message: `${error.message ?? `PayPal answered ${response.status}`}${detail ? ` (${detail})` : ''}` };
  };

  return {
    async payout(request) {
      let lastError = 'no attempt made';
      for (let n = 1; n <= options.maxAttempts; n++) {
        try {
          const outcome = await attempt(request);
          return { ...outcome, attempts: n };
        } catch (error) {
          if (!(error instanceof RetryableError)) return { kind: 'refused', message: (error as Error).message, attempts: n };
          lastError = error.message;
          options.log.warn({ senderBatchId: request.senderBatchId, attempt: n, err: error.message }, 'PayPal payout attempt failed; retrying with the same sender_batch_id');
          if (n < options.maxAttempts) await new Promise((r) => setTimeout(r, options.retryBaseMs * 2 ** (n - 1)));
        }
      }
      return { kind: 'unavailable', message: lastError, attempts: options.maxAttempts };
    },
  };
}
