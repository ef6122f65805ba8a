// Every error `code` an HTTP answer of the system carries, with its HTTP status where it is always the
// same and its message where there is one for every case. Services throw with these codes, the web
// app branches on them, the OpenAPI document lists them. A code's text never changes: clients match it.

interface ErrorDefinition {
  /** The status every answer with this code has; absent when it depends on where it is refused. */
  readonly status?: number;
  /** The message when the refusal has nothing to add; absent when each site says its own. */
  readonly message?: string;
  /** What the code means, for the API's reader. */
  readonly meaning: string;
}

const define = <T extends Record<string, ErrorDefinition>>(errors: T): T => errors;

export const ERRORS = define({
  BAD_REQUEST: { status: 400, meaning: 'Bad input: the message names the field, `field` names it too.' },
  UNAUTHORIZED: {
    status: 401,
    message: 'Authentication required',
    meaning: 'No valid token, or the session it belongs to has ended: sign in again.',
  },
  FORBIDDEN: { status: 403, message: 'Not allowed', meaning: 'The caller may not do this.' },
  NOT_FOUND: { status: 404, message: 'Not found', meaning: 'No such route or thing.' },
  CONFLICT: {
    status: 409,
    meaning: 'The request clashes with the current state (a name taken, a step done).',
  },
  GONE: { status: 410, meaning: 'What the link or request was for may no longer be done.' },
  RATE_LIMITED: {
    status: 429,
    message: 'Too many requests, slow down',
    meaning: 'Over a rate limit; try again after Retry-After.',
  },
  INTERNAL: {
    status: 500,
    message: 'Internal server error',
    meaning: 'A failure of ours: quote the requestId to an operator.',
  },
  UNAVAILABLE: { status: 503, meaning: 'A store the service needs is away for a moment; try again.' },
  ACCOUNT_SUSPENDED: {
    meaning: "The account is suspended (401 or 403): the message carries the operator's reason.",
  },
  EMAIL_NOT_VERIFIED: {
    status: 403,
    message:
      'Verify your account email before collecting: open the link we mailed you (or ask for a new one), then collect again. Nothing was moved.',
    meaning: 'A collect refused because the account email is not verified; nothing moved.',
  },
  PAYOUT_EMAIL_PENDING: {
    status: 409,
    message:
      'Your new PayPal email is not confirmed yet: open the link we mailed to your account email, then collect again. Nothing was moved.',
    meaning: 'A collect refused while the newest payout email waits for its confirmation; nothing moved.',
  },
  PAYOUT_HELD: {
    status: 409,
    meaning:
      "A collect held: a purchase the winner made before the win has not settled with the card's bank, is disputed, or was taken back; the message says which. Nothing moved.",
  },
  OVERLOADED: {
    status: 503,
    message: 'The game is very busy right now; your click was not counted, try again in a moment',
    meaning: 'A click shed because the game is flooded; nothing counted, try again after Retry-After.',
  },
  RETRY_TOO_SOON: {
    status: 429,
    message: 'Too soon: wait for the Retry-After you were given before clicking again',
    meaning: 'A click resent before the Retry-After of its last refusal.',
  },
  AUTH_UNAVAILABLE: { status: 503, meaning: 'Payments could not reach the account service; nothing moved.' },
  GAME_UNAVAILABLE: {
    status: 503,
    meaning: 'Payments could not reach the game; send the same request again.',
  },
  PAYMENTS_UNAVAILABLE: {
    status: 503,
    meaning: 'The game could not reach payments to confirm a refund; payments sends it again.',
  },
  PURCHASE_DISPUTED: {
    status: 409,
    meaning:
      'A refund refused: the purchase is disputed at the provider (a lost dispute is taken back as a clawback); nothing moved.',
  },
  APPROVAL_OWN_REQUEST: {
    status: 403,
    message: 'Another admin must approve or refuse this request: you opened it',
    meaning: 'An admin tried to decide a two-admin request they opened themselves.',
  },
  APPROVAL_CLOSED: {
    status: 409,
    meaning: 'The two-admin request was already approved, refused or has expired; nothing was done.',
  },
  PRIVILEGED_CANNOT_WIN: {
    status: 409,
    message:
      'An admin or superuser cannot make the winning click: a player must make it. Your click was not counted.',
    meaning: "A privileged account's click that would have been the round's target click; nothing counted.",
  },
  PROVIDER_UNAVAILABLE: { status: 502, meaning: 'Braintree or PayPal did not answer.' },
  PROVIDER_REFUSED: { status: 502, meaning: 'Braintree or PayPal refused; nothing moved.' },
  UPSTREAM_UNAVAILABLE: { meaning: 'The gateway could not reach the service behind it (502, 503 or 504).' },
  BAD_PATH: { status: 400, meaning: 'The request path is malformed (the gateway names the problem).' },
  WEBSOCKET_ONLY: {
    status: 400,
    message: 'The live connection uses the websocket transport only',
    meaning: 'A Socket.IO connection asked for a transport other than websocket.',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    message: 'Request body is too large',
    meaning: 'Body too large.',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    message: 'Content-Type must be application/json',
    meaning: 'A body that is not JSON.',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    message: 'Request body must not be empty when Content-Type is application/json',
    meaning: 'An empty body sent as JSON.',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: 400,
    message: 'Request body is not valid JSON',
    meaning: 'A body that does not parse.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    message: 'Request body is not valid JSON',
    meaning: 'A Content-Length that does not match the body.',
  },
  FST_ERR_CLIENT: {
    status: 400,
    message: 'The request is not valid HTTP',
    meaning: "A request the HTTP parser could not read (Node's own code, HPE_..., when it names one).",
  },
  HPE_HEADER_OVERFLOW: {
    status: 431,
    message: 'Request headers are too large',
    meaning: 'Headers over the limit.',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    message: 'The request took too long to arrive',
    meaning: 'A request that did not arrive in time.',
  },
});

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

/** Each code as a constant of its own name: `ERROR_CODE.OVERLOADED === 'OVERLOADED'`. */
export const ERROR_CODE = Object.fromEntries(ERROR_CODES.map((code) => [code, code])) as {
  readonly [C in ErrorCode]: C;
};

type WithMessage = {
  [C in ErrorCode]: (typeof ERRORS)[C] extends { message: string } ? C : never;
}[ErrorCode];
type WithStatus = { [C in ErrorCode]: (typeof ERRORS)[C] extends { status: number } ? C : never }[ErrorCode];

/** The message of a code that has one. */
export const errorMessage = <C extends WithMessage>(code: C): (typeof ERRORS)[C]['message'] =>
  ERRORS[code].message;

/** The status of a code whose status is fixed. */
export const errorStatus = <C extends WithStatus>(code: C): (typeof ERRORS)[C]['status'] =>
  ERRORS[code].status;

export const ACCOUNT_SUSPENDED = ERROR_CODE.ACCOUNT_SUSPENDED;
export const EMAIL_NOT_VERIFIED = ERROR_CODE.EMAIL_NOT_VERIFIED;
export const PAYOUT_EMAIL_PENDING = ERROR_CODE.PAYOUT_EMAIL_PENDING;
export const PAYOUT_HELD = ERROR_CODE.PAYOUT_HELD;
export const EMAIL_NOT_VERIFIED_MESSAGE = ERRORS.EMAIL_NOT_VERIFIED.message;
export const PAYOUT_EMAIL_PENDING_COLLECT_MESSAGE = ERRORS.PAYOUT_EMAIL_PENDING.message;

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && Object.hasOwn(ERRORS, value);
