// Money paths ask auth, the source of truth, who the caller is now: a token lives 15 minutes and an event
// may be late, but an account deleted or demoted a moment ago must move no money. The player's own token
// is forwarded; no answer means no money moves (503), never a guess.
import {
  AppError,
  callerOf,
  forwardedHeaders,
  unauthorized,
  type AuthorityLookup,
  type Caller,
  type ServiceCredentials,
} from '@omc/service-kit';
import { ERROR_CODE, INTERNAL_ACCOUNT_PATH, InternalAccount } from '@omc/contracts';

export interface AccountCheckOptions {
  authUrl: string;
  timeoutMs: number;
  credentials: ServiceCredentials;
}

const cannotAsk = () =>
  new AppError(
    ERROR_CODE.AUTH_UNAVAILABLE,
    503,
    'Cannot check your account right now, so nothing was moved. Try again shortly.',
  );

export class AccountCheck {
  constructor(private readonly options: AccountCheckOptions) {}

  /**
   * The caller's account as auth has it now; 401 (with auth's reason) when the account no longer exists,
   * the token's session was ended or the token is older than the account's last security event.
   */
  async current(caller: Caller): Promise<InternalAccount> {
    const headers = { ...forwardedHeaders(caller), ...this.options.credentials.headersFor('auth') };
    let response: Response;
    try {
      response = await fetch(`${this.options.authUrl}${INTERNAL_ACCOUNT_PATH}`, {
        headers,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch {
      throw cannotAsk();
    }
    if (response.status === 401) {
      // Auth says why: the account is gone, the session was ended, or the token predates a security
      // event (a reset, a password or email change, sign out everywhere). Its words reach the player.
      const body = (await response.json().catch(() => undefined)) as { message?: unknown } | undefined;
      throw unauthorized(
        typeof body?.message === 'string' && body.message.length <= 300
          ? body.message
          : 'This session is no longer valid; please sign in again',
      );
    }
    const parsed = response.ok
      ? InternalAccount.safeParse(await response.json().catch(() => undefined))
      : undefined;
    if (!parsed?.success) throw cannotAsk();
    return parsed.data;
  }
}

/** The freshAuthority lookup of payments' admin and money routes: auth's account for the caller's token. */
export const currentAccount =
  (accounts: AccountCheck): AuthorityLookup<InternalAccount> =>
  (request) =>
    accounts.current(callerOf(request));
