// Auth's part of the payout email's confirmation, over internal HTTP (never the bus, so the token travels
// on no stream): auth checks the password or a recent sign-in and mails the link and the notices, and says
// an account's security epoch when the link comes back. No answer means nothing changes (503).
import {
  ERROR_CODE,
  INTERNAL,
  isErrorCode,
  type InternalAccountSecurity,
  type InternalPayoutEmailMail,
} from '@omc/contracts';
import {
  AppError,
  RetryLater,
  unauthorized,
  type Caller,
  type InternalClient,
  type RefusalBody,
} from '@omc/service-kit';

const cannotAsk = () =>
  new AppError(
    ERROR_CODE.AUTH_UNAVAILABLE,
    503,
    'Cannot reach the account service right now, so the PayPal email did not change. Try again shortly.',
  );

/** Auth's refusal, passed on with its status, code, field and message (400, 401, 403, 429). */
function refusal(status: number, body: RefusalBody, headers: Headers): AppError {
  const message = body.message && body.message.length <= 300 ? body.message : undefined;
  if (status === 401) return unauthorized(message ?? 'This session is no longer valid; please sign in again');
  if (!message || status >= 500) return cannotAsk();
  // Auth's mail quota: its Retry-After is passed on.
  if (status === 429) return new RetryLater(message, Math.max(1, Number(headers.get('retry-after')) || 1));
  return new AppError(
    isErrorCode(body.code) ? body.code : ERROR_CODE.BAD_REQUEST,
    status,
    message,
    body.field,
  );
}

export class AuthPayoutMail {
  /** `mailTimeoutMs`: the mail call may check a password (as slow as a login). */
  constructor(
    private readonly internal: InternalClient,
    private readonly mailTimeoutMs: number,
  ) {}

  /** Asks auth to check the caller (password or recent sign-in) and to mail the link and the notices. */
  async mail(caller: Caller, body: InternalPayoutEmailMail): Promise<void> {
    const asked = await this.internal.call(INTERNAL.payoutEmailMail, {
      body,
      caller,
      timeoutMs: this.mailTimeoutMs,
    });
    if (asked.kind === 'answered') return;
    if (asked.kind !== 'refused') throw cannotAsk();
    throw refusal(asked.status, asked.body, asked.headers);
  }

  /** The account's security epoch and suspension now; undefined when auth has no such account. */
  async security(userId: string): Promise<InternalAccountSecurity | undefined> {
    const asked = await this.internal.call(INTERNAL.accountSecurity, { params: { userId } });
    if (asked.kind === 'answered') return asked.data;
    if (asked.kind === 'refused' && asked.status === 404) return undefined;
    throw cannotAsk();
  }
}
