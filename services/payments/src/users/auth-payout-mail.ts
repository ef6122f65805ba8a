// Auth's part of the payout email's confirmation, over internal HTTP (never the bus, so the token travels
// on no stream): auth checks the password or a recent sign-in and mails the link and the notices, and says
// an account's security epoch when the link comes back. No answer means nothing changes (503).
import {
  ERROR_CODE,
  INTERNAL_PAYOUT_EMAIL_MAIL_PATH,
  isErrorCode,
  InternalAccountSecurity,
  internalAccountSecurityPath,
  type InternalPayoutEmailMail,
} from '@omc/contracts';
import {
  AppError,
  forwardedHeaders,
  RetryLater,
  unauthorized,
  type Caller,
  type ServiceCredentials,
} from '@omc/service-kit';

export interface AuthPayoutMailOptions {
  authUrl: string;
  timeoutMs: number;
  /** For the mail call, which may check a password (as slow as a login). */
  mailTimeoutMs: number;
  credentials: ServiceCredentials;
}

const cannotAsk = () =>
  new AppError(
    ERROR_CODE.AUTH_UNAVAILABLE,
    503,
    'Cannot reach the account service right now, so the PayPal email did not change. Try again shortly.',
  );

/** Auth's refusal, passed on with its status, code, field and message (400, 401, 403, 429). */
async function refusal(response: Response): Promise<AppError> {
  const body = (await response.json().catch(() => undefined)) as
    { message?: unknown; code?: unknown; field?: unknown } | undefined;
  const message = typeof body?.message === 'string' && body.message.length <= 300 ? body.message : undefined;
  if (response.status === 401)
    return unauthorized(message ?? 'This session is no longer valid; please sign in again');
  if (!message) return cannotAsk();
  // Auth's mail quota: its Retry-After is passed on.
  if (response.status === 429)
    return new RetryLater(message, Math.max(1, Number(response.headers.get('retry-after')) || 1));
  return new AppError(
    isErrorCode(body?.code) ? body.code : ERROR_CODE.BAD_REQUEST,
    response.status,
    message,
    typeof body?.field === 'string' ? body.field : undefined,
  );
}

export class AuthPayoutMail {
  constructor(private readonly options: AuthPayoutMailOptions) {}

  /** Asks auth to check the caller (password or recent sign-in) and to mail the link and the notices. */
  async mail(caller: Caller, body: InternalPayoutEmailMail): Promise<void> {
    let response: Response;
    try {
      response = await fetch(`${this.options.authUrl}${INTERNAL_PAYOUT_EMAIL_MAIL_PATH}`, {
        method: 'POST',
        headers: {
          ...forwardedHeaders(caller),
          ...this.options.credentials.headersFor('auth'),
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.mailTimeoutMs),
      });
    } catch {
      throw cannotAsk();
    }
    if (response.ok) return;
    if (response.status >= 500) throw cannotAsk();
    throw await refusal(response);
  }

  /** The account's security epoch and suspension now; undefined when auth has no such account. */
  async security(userId: string): Promise<InternalAccountSecurity | undefined> {
    let response: Response;
    try {
      response = await fetch(`${this.options.authUrl}${internalAccountSecurityPath(userId)}`, {
        headers: { accept: 'application/json', ...this.options.credentials.headersFor('auth') },
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch {
      throw cannotAsk();
    }
    if (response.status === 404) return undefined;
    const parsed = response.ok
      ? InternalAccountSecurity.safeParse(await response.json().catch(() => undefined))
      : undefined;
    if (!parsed?.success) throw cannotAsk();
    return parsed.data;
  }
}
