// PayPal Payouts over its REST API: OAuth2 client credentials, then one batch per payout whose
// sender_batch_id is our payout id. The outcome is three-valued: paid, refused, or unknown. Only PayPal's
// own refusal of this batch (a 4xx other than "duplicate"), or a failure before any payout request left,
// is a refusal; every other failure (no answer, a cut body, a failed lookup) is unknown and retried with
// the same id, since PayPal pays a sender_batch_id once. A duplicate answer means an earlier attempt
// landed, and points at its batch.
import type { Logger } from 'pino';
import { formatEuroAmount } from '@omc/contracts';
import { backoff, RETRY_POLICIES } from '@omc/service-kit';

export type PayoutOutcome =
  | { kind: 'paid'; payoutBatchId: string; attempts: number }
  /** PayPal refused it for good (a 4xx), or no payout request ever left: nothing was paid. */
  | { kind: 'refused'; message: string; attempts: number }
  /**
   * No answer we can rely on after every attempt: maybe paid, maybe not. The money stays reserved and the
   * payout is finished later with the same id; it is never released on a guess.
   */
  | { kind: 'unknown'; message: string; attempts: number };

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

/** PayPal refused our credentials: no payout request was sent in this attempt. */
class NotSent extends Error {}

interface PayPalError {
  name?: string;
  message?: string;
  details?: { field?: string; issue?: string }[];
  links?: { href?: string; rel?: string }[];
}

type AttemptOutcome = { kind: 'paid'; payoutBatchId: string } | { kind: 'refused'; message: string };

/** A fresh access token (client credentials); NotSent when PayPal refuses our credentials. */
async function requestToken(options: PayPalOptions): Promise<{ token: string; expiresAt: number }> {
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
    throw new Error(`PayPal OAuth did not answer: ${(error as Error).message}`);
  }
  if (response.status >= 500 || response.status === 429)
    throw new Error(`PayPal OAuth answered ${response.status}`);
  if (!response.ok) throw new NotSent(`PayPal refused our credentials (${response.status})`);
  const body = (await response.json()) as { access_token: string; expires_in: number };
  return { token: body.access_token, expiresAt: Date.now() + Math.max(body.expires_in - 60, 30) * 1000 };
}

/** The payout_batch_id of a batch, asked of PayPal by its id. */
async function lookupBatch(options: PayPalOptions, token: string, batchId: string): Promise<string> {
  const response = await fetch(`${options.baseUrl}/v1/payments/payouts/${encodeURIComponent(batchId)}`, {
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  if (!response.ok) throw new Error(`PayPal batch lookup answered ${response.status}`);
  const body = (await response.json()) as { batch_header: { payout_batch_id: string } };
  return body.batch_header.payout_batch_id;
}

/** Posts the one-item batch whose sender_batch_id is the payout id; throws when PayPal does not answer. */
async function postBatch(options: PayPalOptions, token: string, request: PayoutRequest): Promise<Response> {
  try {
    return await fetch(`${options.baseUrl}/v1/payments/payouts`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({
        sender_batch_header: {
          sender_batch_id: request.senderBatchId,
          email_subject: 'One Million Clicks payout',
          recipient_type: 'EMAIL',
        },
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
    throw new Error(`PayPal did not answer: ${(error as Error).message}`);
  }
}

/**
 * What PayPal's answer to the batch means: paid (accepted, or a duplicate of a batch that landed),
 * refused (any other 4xx), or a throw when it says nothing we can rely on (5xx, 429, 408, an unread body).
 */
async function batchOutcome(
  options: PayPalOptions,
  request: PayoutRequest,
  response: Response,
  getBatch: (batchId: string) => Promise<string>,
): Promise<AttemptOutcome> {
  if (response.status === 201 || response.status === 200) {
    // Accepted, but a body that fails to read says nothing more: unknown, and the retry's duplicate
    // answer names the batch.
    const body = (await response.json().catch(() => undefined)) as
      { batch_header?: { payout_batch_id?: string } } | undefined;
    const payoutBatchId = body?.batch_header?.payout_batch_id;
    if (!payoutBatchId) throw new Error(`PayPal answered ${response.status} with a body we could not read`);
    return { kind: 'paid', payoutBatchId };
  }
  if (response.status >= 500 || response.status === 429 || response.status === 408)
    throw new Error(`PayPal answered ${response.status}`);
  const error = (await response.json().catch(() => ({}))) as PayPalError;
  const duplicate = error.details?.some((d) => d.field?.toUpperCase() === 'SENDER_BATCH_ID');
  if (duplicate) {
    // An earlier attempt with this sender_batch_id landed: PayPal links its batch. Only its id is
    // taken from the link; the lookup goes to our configured host.
    const href = error.links?.find((l) => l.rel === 'self')?.href ?? error.links?.[0]?.href ?? '';
    const batchId = href.split('/').filter(Boolean).pop();
    options.log.warn(
      { senderBatchId: request.senderBatchId, batchId },
      'PayPal already has this sender_batch_id: an earlier attempt landed',
    );
    return { kind: 'paid', payoutBatchId: batchId ? await getBatch(batchId) : request.senderBatchId };
  }
  const detail = error.details
    ?.map((d) => d.issue)
    .filter(Boolean)
    .join('; ');
  return {
    kind: 'refused',
    message: `${error.message ?? `PayPal answered ${response.status}`}${detail ? ` (${detail})` : ''}`,
  };
}

export function createPayPalClient(options: PayPalOptions): PayoutsClient {
  let cached: { token: string; expiresAt: number } | undefined;

  const accessToken = async (): Promise<string> => {
    if (cached && cached.expiresAt > Date.now()) return cached.token;
    cached = await requestToken(options);
    return cached.token;
  };
  const getBatch = async (batchId: string) => lookupBatch(options, await accessToken(), batchId);

  const attempt = async (request: PayoutRequest, sending: () => void): Promise<AttemptOutcome> => {
    const token = await accessToken();
    sending();
    const response = await postBatch(options, token, request);
    if (response.status === 401) {
      cached = undefined;
      throw new Error('PayPal token expired');
    }
    return batchOutcome(options, request, response, getBatch);
  };

  return {
    async payout(request) {
      let lastError = 'no attempt made';
      /** Whether a payout request may have left: from then on, no failure of ours can mean "not paid". */
      let maybeSent = false;
      for (let n = 1; n <= options.maxAttempts; n++) {
        try {
          const outcome = await attempt(request, () => (maybeSent = true));
          return { ...outcome, attempts: n };
        } catch (error) {
          lastError = (error as Error).message;
          if (error instanceof NotSent && !maybeSent)
            return { kind: 'refused', message: lastError, attempts: n };
          options.log.warn(
            { senderBatchId: request.senderBatchId, attempt: n, err: lastError },
            'PayPal payout attempt failed; retrying with the same sender_batch_id',
          );
          if (n < options.maxAttempts)
            await backoff({ ...RETRY_POLICIES.payoutResend, baseMs: options.retryBaseMs }, n - 1);
        }
      }
      return { kind: 'unknown', message: lastError, attempts: options.maxAttempts };
    },
  };
}
