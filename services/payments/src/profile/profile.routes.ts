import { centsToEuros, PaymentsProfile } from '@omc/contracts';
import { requireUser } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import { ACCOUNTS, winningsAccount } from '../ledger/accounts.js';
import { balance } from '../ledger/ledger.repo.js';
import { getPayee } from '../payouts/payouts.repo.js';
import type { UsersService } from '../users/users.service.js';

export async function profileRoutes(app: FastifyInstance, deps: Deps, users: UsersService): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get('/api/payments/profile', { schema: { response: { 200: PaymentsProfile } } }, async (request) => {
    const user = await requireUser(request);
    const [winnings, paypalEmail, admin] = await Promise.all([
      balance(deps.db, winningsAccount(user.sub)),
      getPayee(deps.db, user.sub),
      users.isAdmin(user.sub, user.role),
    ]);
    return {
      potEarned: centsToEuros(winnings),
      paypalEmail,
      adminBalance: admin ? centsToEuros(await balance(deps.db, ACCOUNTS.house)) : null,
    };
  });
}
