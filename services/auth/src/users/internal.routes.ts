// Routes for the other services only: no public prefix of the gateway reaches /internal, and the
// NetworkPolicies let only the named callers in. The caller forwards the player's own token.
import {
  INTERNAL_ACCOUNT_PATH,
  INTERNAL_AUDIT_PATH,
  InternalAccount,
  InternalAuditRecord,
  MessageResponse,
} from '@omc/contracts';
import { forbidden } from '@omc/service-kit';
import { appendAudit, auditParty } from '../audit/audit.repo.js';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthContext } from '../context.js';
import { accountOf, signedIn } from './current-user.js';
import { findUserById } from './users.repo.js';

export async function internalRoutes(scope: FastifyInstance, ctx: AuthContext): Promise<void> {
  scope.addHook('onRequest', signedIn(ctx));
  const app = scope.withTypeProvider<ZodTypeProvider>();
  // The account as the database has it now: a deleted account, an ended session or a token older than the
  // account's last security event is a 401 (the hook's check), a changed role the new one.
  app.get(INTERNAL_ACCOUNT_PATH, { schema: { response: { 200: InternalAccount } } }, async (request) => {
    const account = accountOf(request);
    return {
      userId: account.id,
      role: account.role,
      emailVerified: account.email_verified_at !== null,
      signedInAt: request.signedInAt?.toISOString() ?? null,
      securityEpoch: account.security_epoch,
    };
  });

  // An admin action another service carried out for the caller (payments: the house pot collected, a
  // purchase refunded).
  app.post(
    INTERNAL_AUDIT_PATH,
    { schema: { body: InternalAuditRecord, response: { 200: MessageResponse } } },
    async (request) => {
      const account = accountOf(request);
      if (account.role !== 'admin') throw forbidden('Only an admin action is recorded here');
      const { action, targetId, detail, ip } = request.body;
      // The player the action was about (a refund's buyer), by name as auth holds it; a deleted one by id.
      const target = targetId ? await findUserById(ctx.deps.db, targetId) : undefined;
      await appendAudit(ctx.deps.db, {
        action,
        actor: auditParty(account),
        target: target ? auditParty(target) : targetId ? { id: targetId, label: null } : null,
        detail,
        ip,
      });
      return { message: 'Recorded' };
    },
  );
}
