// PayPal Payouts over its REST API: OAuth2 client credentials, then one batch per payout whose
// sender_batch_id is our payout id. The outcome is three-valued: paid, refused, or unknown. Refused only
// when PayPal's answer names a refusal that comes before any batch exists (REFUSED_BEFORE_BATCH) and no
// earlier attempt of this payout may have reached PayPal, or when no payout request ever left; every
// other answer (no answer, 5xx, any other 4xx, a cut or unreadable body, a failed lookup) is unknown and
// is looked up by sending the same sender_batch_id again: PayPal pays a sender_batch_id once and answers
// a reused one with a link to its batch, which is then read back by its payout_batch_id.
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
  /**
   * An earlier call for this payout may have reached PayPal (a payout resumed after an unknown answer or
   * a crash): PayPal's refusals then no longer prove that nothing was paid, except VALIDATION_ERROR.
   */
  resumed?: boolean;
}

/** PayPal's transaction statuses of a payout item. */
export const PAYOUT_ITEM_STATUSES = [
  'SUCCESS',
  'FAILED',
  'PENDING',
  'UNCLAIMED',
  'RETURNED',
  'ONHOLD',
  'BLOCKED',
  'REFUNDED',
  'REVERSED',
] as const;
export type PayoutItemStatus = (typeof PAYOUT_ITEM_STATUSES)[number];

/** A batch as PayPal shows it: its status and its one item's transaction status (null while it has none). */
export interface BatchState {
  payoutBatchId: string;
  senderBatchId: string | null;
  batchStatus: string;
  itemStatus: PayoutItemStatus | null;
  /** PayPal's error name on the item (RECEIVER_UNREGISTERED for an unclaimed one), if any. */
  itemError: string | null;
}

export interface PayoutsClient {
  payout(request: PayoutRequest): Promise<PayoutOutcome>;
  /** PayPal's record of a batch, by its payout_batch_id; throws when PayPal does not answer it. */
  batchState(payoutBatchId: string): Promise<BatchState>;
}

/**
 * The error names of PayPal's create-batch answer (400, 403 or 422) that refuse the request before any
 * batch exists: the request is invalid, or the sender cannot pay (funds, restrictions, lock, unconfirmed
 * or unverified account, credentials without the payouts scope). docs/payments.md, "What PayPal's answer
 * means". Any other name (USER_BUSINESS_ERROR, INTERNAL_ERROR, a name PayPal adds later) is unknown.
 */
export const REFUSED_BEFORE_BATCH = new Set([
  'VALIDATION_ERROR',
  'INSUFFICIENT_FUNDS',
  'SENDER_RESTRICTED',
  'SENDER_LOCKED',
  'SENDER_ACCOUNT_LOCKED',
  'SENDER_EMAIL_UNCONFIRMED',
  'SENDER_ACCOUNT_UNVERIFIED',
  'AUTHORIZATION_ERROR',
  'REQUIRED_SCOPE_MISSING',
]);
const REFUSAL_STATUSES = new Set([400, 403, 422]);
/** A refusal of the request's own content: the same request is refused alike however often it is sent. */
const REFUSED_FOR_ITS_CONTENT = 'VALIDATION_ERROR';

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
/** PayPal answered the batch 401: our token was refused, so this attempt made nothing. */
class TokenRefused extends Error {}

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

interface BatchBody {
  batch_header?: {
    payout_batch_id?: string;
    batch_status?: string;
    sender_batch_header?: { sender_batch_id?: string };
  };
  items?: { transaction_status?: string; errors?: { name?: string } }[];
}

/** PayPal did not answer a read (no answer, 5xx, 429): asking again at once would only wait again. */
export class PayPalUnavailable extends Error {}

/** A batch as PayPal shows it, asked by its payout_batch_id; throws on any answer that does not show it. */
async function lookupBatch(options: PayPalOptions, token: string, batchId: string): Promise<BatchState> {
  let response: Response;
  try {
    response = await fetch(`${options.baseUrl}/v1/payments/payouts/${encodeURIComponent(batchId)}`, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    throw new PayPalUnavailable(`PayPal batch lookup did not answer: ${(error as Error).message}`);
  }
  if (response.status >= 500 || response.status === 429)
    throw new PayPalUnavailable(`PayPal batch lookup answered ${response.status}`);
  if (!response.ok) throw new Error(`PayPal batch lookup answered ${response.status}`);
  const body = (await response.json().catch(() => undefined)) as BatchBody | undefined;
  const header = body?.batch_header;
  if (!header?.payout_batch_id || !header.batch_status)
    throw new Error('PayPal batch lookup answered a body we could not read');
  const item = body?.items?.[0];
  const status = item?.transaction_status?.toUpperCase();
  return {
    payoutBatchId: header.payout_batch_id,
    senderBatchId: header.sender_batch_header?.sender_batch_id ?? null,
    batchStatus: header.batch_status.toUpperCase(),
    itemStatus: PAYOUT_ITEM_STATUSES.find((s) => s === status) ?? null,
    itemError: item?.errors?.name ?? null,
  };
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
 * What PayPal's answer to the batch means: paid (accepted, or a duplicate of a batch that landed and is
 * found by its link), refused (a name of REFUSED_BEFORE_BATCH, trusted only when no earlier attempt may
 * have reached PayPal, except a VALIDATION_ERROR), or a throw when it says nothing we can rely on: 5xx,
 * 429, 408, 409, any other 4xx or name, an unread body. A throw is retried with the same sender_batch_id,
 * which is the lookup: PayPal answers a reused one with its batch.
 */
async function batchOutcome(
  options: PayPalOptions,
  request: PayoutRequest,
  response: Response,
  earlierMaybeSent: boolean,
  getBatch: (batchId: string) => Promise<BatchState>,
): Promise<AttemptOutcome> {
  if (response.status === 201 || response.status === 200) {
    // Accepted, but a body that fails to read says nothing more: unknown, and the retry's duplicate
    // answer names the batch.
    const body = (await response.json().catch(() => undefined)) as BatchBody | undefined;
    const payoutBatchId = body?.batch_header?.payout_batch_id;
    if (!payoutBatchId) throw new Error(`PayPal answered ${response.status} with a body we could not read`);
    return { kind: 'paid', payoutBatchId };
  }
  const error = (await response.json().catch(() => undefined)) as PayPalError | undefined;
  if (!error || typeof error !== 'object')
    throw new Error(`PayPal answered ${response.status} with a body we could not read`);
  const duplicate = error.details?.some((d) => d.field?.toUpperCase() === 'SENDER_BATCH_ID');
  if (duplicate && response.status < 500) return duplicateOutcome(options, request, error, getBatch);
  const detail = error.details
    ?.map((d) => d.issue)
    .filter(Boolean)
    .join('; ');
  const message = `${error.message ?? `PayPal answered ${response.status}`}${detail ? ` (${detail})` : ''}`;
  const name = (error.name ?? '').toUpperCase();
  const refusal = REFUSAL_STATUSES.has(response.status) && REFUSED_BEFORE_BATCH.has(name);
  if (refusal && (!earlierMaybeSent || name === REFUSED_FOR_ITS_CONTENT))
    return { kind: 'refused', message: `${name}: ${message}` };
  throw new Error(
    refusal
      ? `PayPal answered ${response.status} ${name} after an earlier attempt may have reached it: ${message}`
      : `PayPal answered ${response.status} ${name || 'without an error name'}: ${message}`,
  );
}

/**
 * An earlier attempt with this sender_batch_id landed: PayPal links its batch. Only its id is taken from
 * the link; the lookup goes to our configured host, and the batch must be this payout's.
 */
async function duplicateOutcome(
  options: PayPalOptions,
  request: PayoutRequest,
  error: PayPalError,
  getBatch: (batchId: string) => Promise<BatchState>,
): Promise<AttemptOutcome> {
  const href = error.links?.find((l) => l.rel === 'self')?.href ?? error.links?.[0]?.href ?? '';
  const batchId = href.split('/').filter(Boolean).pop();
  options.log.warn(
    { senderBatchId: request.senderBatchId, batchId },
    'PayPal already has this sender_batch_id: an earlier attempt landed',
  );
  if (!batchId) return { kind: 'paid', payoutBatchId: request.senderBatchId };
  const batch = await getBatch(batchId);
  if (batch.senderBatchId !== null && batch.senderBatchId !== request.senderBatchId)
    throw new Error(`PayPal linked batch ${batchId}, which is not this payout's`);
  return { kind: 'paid', payoutBatchId: batch.payoutBatchId };
}

export function createPayPalClient(options: PayPalOptions): PayoutsClient {
  let cached: { token: string; expiresAt: number } | undefined;

  const accessToken = async (): Promise<string> => {
    if (cached && cached.expiresAt > Date.now()) return cached.token;
    cached = await requestToken(options);
    return cached.token;
  };
  const getBatch = async (batchId: string) => lookupBatch(options, await accessToken(), batchId);

  const attempt = async (
    request: PayoutRequest,
    earlierMaybeSent: boolean,
    sending: () => void,
  ): Promise<AttemptOutcome> => {
    const token = await accessToken();
    sending();
    const response = await postBatch(options, token, request);
    if (response.status === 401) {
      cached = undefined;
      throw new TokenRefused('PayPal token expired');
    }
    return batchOutcome(options, request, response, earlierMaybeSent, getBatch);
  };

  return {
    batchState: getBatch,
    async payout(request) {
      let lastError = 'no attempt made';
      /** Whether a payout request may have left: from then on, no failure of ours can mean "not paid". */
      let maybeSent = false;
      for (let n = 1; n <= options.maxAttempts; n++) {
        const sentBefore: boolean = maybeSent;
        try {
          const outcome = await attempt(request, request.resumed === true || sentBefore, () => {
            maybeSent = true;
          });
          return { ...outcome, attempts: n };
        } catch (error) {
          lastError = (error as Error).message;
          if (error instanceof TokenRefused) maybeSent = sentBefore;
          if (error instanceof NotSent && !maybeSent && request.resumed !== true)
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
