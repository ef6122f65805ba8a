// The payments part of a player's profile: winnings, PayPal email, and the house balance for an admin.
import { centsToEuros, type AccessTokenClaims, type PaymentsProfile } from '@omc/contracts';
import type { Deps } from '../deps.js';
import { ACCOUNTS, winningsAccount } from '../ledger/accounts.js';
import { balance } from '../ledger/ledger.repo.js';
import { getPayee } from '../payouts/payouts.repo.js';
import type { UsersService } from '../users/users.service.js';

export class ProfileService {
  constructor(
    private readonly deps: Deps,
    private readonly users: UsersService,
  ) {}

  async profile(user: Pick<AccessTokenClaims, 'sub' | 'role'>): Promise<PaymentsProfile> {
    const [winnings, paypalEmail, admin] = await Promise.all([
      balance(this.deps.db, winningsAccount(user.sub)),
      getPayee(this.deps.db, user.sub),
      this.users.isAdmin(user.sub, user.role),
    ]);
    return {
      potEarned: centsToEuros(winnings),
      paypalEmail,
      adminBalance: admin ? centsToEuros(await balance(this.deps.db, ACCOUNTS.house)) : null,
    };
  }
}
