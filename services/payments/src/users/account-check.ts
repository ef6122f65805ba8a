// Money paths ask auth, the source of truth, who the caller is now: a token lives 15 minutes and an event
// may be late, but an account deleted or demoted a moment ago must move no money. The player's own token
// is forwarded; no answer means no money moves (503), never a guess.
import {
  AppError,
  callerOf,
  unauthorized,
  type AuthorityLookup,
  type Caller,
  type InternalClient,
} from '@omc/service-kit';
import { ERROR_CODE, INTERNAL, type InternalAccount } from '@omc/contracts';

const cannotAsk = () =>
  new AppError(
    ERROR_CODE.AUTH_UNAVAILABLE,
    503,
    'Cannot check your account right now, so nothing was moved. Try again shortly.',
  );

export class AccountCheck {
  constructor(private readonly internal: InternalClient) {}

  /**
   * The caller's account as auth has it now; 401 (with auth's reason) when the account no longer exists,
   * the token's session was ended or the token is older than the account's last security event.
   */
  async current(caller: Caller): Promise<InternalAccount> {
    const asked = await this.internal.call(INTERNAL.account, { caller });
    if (asked.kind === 'answered') return asked.data;
    // Auth says why: the account is gone, the session was ended, or the token predates a security
    // event (a reset, a password or email change, sign out everywhere). Its words reach the player.
    if (asked.kind === 'refused' && asked.status === 401) {
      const message = asked.body.message;
      throw unauthorized(
        message && message.length <= 300 ? message : 'This session is no longer valid; please sign in again',
      );
    }
    throw cannotAsk();
  }
}

/** The freshAuthority lookup of payments' admin and money routes: auth's account for the caller's token. */
export const currentAccount =
  (accounts: AccountCheck): AuthorityLookup<InternalAccount> =>
  (request) =>
    accounts.current(callerOf(request));
