// The payments part of a player's profile: winnings, PayPal email, and the house balance for an admin.
import { centsToEuros, type AccessTokenClaims, type PaymentsProfile } from '@omc/contracts';
import { type AppError, type Caller } from '@omc/service-kit';
import type { ClawbacksService } from '../clawbacks/clawbacks.service.js';
import type { Deps } from '../deps.js';
import { ACCOUNTS, winningsAccount } from '../ledger/accounts.js';
import { balance } from '../ledger/ledger.repo.js';
import { getPayee } from '../payouts/payouts.repo.js';
import type { AccountCheck } from '../users/account-check.js';
import type { UsersService } from '../users/users.service.js';

export class ProfileService {
  constructor(
    private readonly deps: Deps,
    private readonly users: UsersService,
    private readonly accounts: AccountCheck,
    private readonly clawbacks: ClawbacksService,
  ) {}

  /**
   * Whether the caller is an admin now: auth's answer (a role changed a moment ago shows at once), or the
   * role on record while auth cannot be asked (the profile is a view: it moves no money). Deleted is a 401.
   */
  private async isAdminNow(user: Pick<AccessTokenClaims, 'sub' | 'role'>, caller: Caller): Promise<boolean> {
    try {
      return (await this.accounts.current(caller)).role === 'admin';
    } catch (error) {
      if ((error as AppError).statusCode === 401) throw error;
      return this.users.isAdmin(user.sub, user.role);
    }
  }

  async profile(user: Pick<AccessTokenClaims, 'sub' | 'role'>, caller: Caller): Promise<PaymentsProfile> {
    const [winnings, paypalEmail, admin] = await Promise.all([
      balance(this.deps.db, winningsAccount(user.sub)),
      getPayee(this.deps.db, user.sub),
      this.isAdminNow(user, caller),
    ]);
    const held = winnings > 0 ? await this.clawbacks.payoutHold(user.sub, false) : null;
    return {
      potEarned: centsToEuros(winnings),
      ...(held ? { payoutHeld: held } : {}),
      paypalEmail,
      adminBalance: admin ? centsToEuros(await balance(this.deps.db, ACCOUNTS.house)) : null,
    };
  }
}
