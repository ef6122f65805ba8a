import { centsToEuros, PaymentsProfile } from '@omc/contracts';
import { requireUser, type AppError } from '@omc/service-kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import { ACCOUNTS, winningsAccount } from '../ledger/accounts.js';
import { balance } from '../ledger/ledger.repo.js';
import { getPayee } from '../payouts/payouts.repo.js';
import type { AccountCheck } from '../users/account-check.js';
import type { UsersService } from '../users/users.service.js';

/**
 * Whether the caller is an admin now: auth's answer (a role changed a moment ago shows at once), or the
 * role on record while auth cannot be asked (the profile is a view: it moves no money). Deleted is a 401.
 */
async function isAdminNow(request: FastifyRequest, users: UsersService, accounts: AccountCheck, claims: { sub: string; role: string }): Promise<boolean> {
  try {
    return (await accounts.current(request)).role === 'admin';
  } catch (error) {
    if ((error as AppError).statusCode === 401) throw error;
    return users.isAdmin(claims.sub, claims.role);
  }
}

export async function profileRoutes(app: FastifyInstance, deps: Deps, users: UsersService, accounts: AccountCheck): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get('/api/payments/profile', { schema: { response: { 200: PaymentsProfile } } }, async (request) => {
    const user = await requireUser(request);
    const [winnings, paypalEmail, admin] = await Promise.all([
      balance(deps.db, winningsAccount(user.sub)),
      getPayee(deps.db, user.sub),
      isAdminNow(request, users, accounts, user),
    ]);
    return {
      potEarned: centsToEuros(winnings),
      paypalEmail,
      adminBalance: admin ? centsToEuros(await balance(deps.db, ACCOUNTS.house)) : null,
    };
  });
}
