import {
  AdminUsersAnswer,
  ROLES_NEEDING_APPROVAL,
  UpdateRoleAnswer,
  AdminUsersQuery,
  AuditPage,
  AuditQuery,
  RestoreRequest,
  SuspendRequest,
  SuspensionResponse,
  UpdateRoleRequest,
  UserIdParams,
} from '@omc/contracts';
import { badRequest, callerOf, freshAuthority, notFound } from '@omc/service-kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthContext } from '../context.js';
import { actingOf, PENDING_MESSAGE } from '../approvals/approvals.routes.js';
import { auditPage } from '../audit/audit.service.js';
import { accountOf, signedIn } from '../users/current-user.js';
import { findUserByEmail, listUsers } from '../users/users.repo.js';
import { balancesOf } from './balances.js';
import { adminEntry, usersPage } from './directory.service.js';
import { GAME_LATE_MESSAGE, tellGameRoleOrWarn } from './game-role-sync.js';
import { tellGameTheSuspension } from './game-suspension-sync.js';
import type { Actor, SuspensionOutcome } from './suspension.service.js';

const actorOf = (request: FastifyRequest): Actor => {
  const account = accountOf(request);
  return { id: account.id, username: account.username, ip: request.ip };
};

const recordedAuthority = async (request: FastifyRequest) => {
  const account = accountOf(request);
  return { userId: account.id, role: account.role };
};

/** The :id of the path, checked after the body so a bad body is named first (as on every route). */
function targetId(params: unknown): string {
  const parsed = UserIdParams.safeParse(params);
  if (!parsed.success) throw badRequest('id must be a user id', 'id');
  return parsed.data.id;
}

export async function adminRoutes(scope: FastifyInstance, ctx: AuthContext): Promise<void> {
  scope.addHook('onRequest', signedIn(ctx));
  // Before the body is read too: a non-admin learns nothing about what the route would accept. The role is
  // the one signedIn just read from the database (with the session and suspension), not the token's.
  scope.addHook('onRequest', freshAuthority(recordedAuthority, { role: 'admin' }));
  const app = scope.withTypeProvider<ZodTypeProvider>();

  // Without parameters, the original client's answer; with any, a searchable page (docs/operations.md).
  app.get(
    '/api/admin/users',
    { schema: { querystring: AdminUsersQuery, response: { 200: AdminUsersAnswer } } },
    async (request) => {
      const { query, cursor, limit } = request.query;
      if (query === undefined && cursor === undefined && limit === undefined)
        return { users: await listUsers(ctx.deps.db) };
      const page = await usersPage(ctx.deps.db, request.query);
      const balances = await balancesOf(
        ctx.deps,
        callerOf(request),
        page.users.map((u) => u.id),
      );
      return { ...page, users: page.users.map((u) => ({ ...u, balances: balances.get(u.id) })) };
    },
  );

  /** Before the admin is answered, the game has the change (the event that follows is then a no-op). */
  const tellGame = async (request: FastifyRequest, outcome: SuspensionOutcome) => {
    if (!outcome.changed) return;
    const told = await tellGameTheSuspension(ctx.deps, callerOf(request), {
      userId: outcome.user.id,
      suspended: outcome.user.suspended_at !== null,
      reason: outcome.user.suspended_reason,
      securityVersion: outcome.securityVersion,
    });
    if (!told.confirmed)
      request.log.warn(
        { reason: told.reason, userId: outcome.user.id },
        'the game did not confirm a suspension change; its event brings it',
      );
  };

  app.post(
    '/api/admin/users/:id/suspend',
    { schema: { body: SuspendRequest, response: { 200: SuspensionResponse } } },
    async (request) => {
      const outcome = await ctx.suspension.suspendUser(
        actorOf(request),
        targetId(request.params),
        request.body.reason,
      );
      await tellGame(request, outcome);
      return {
        message: outcome.changed ? 'Account suspended; its sessions have ended' : 'Account already suspended',
        user: adminEntry(outcome.user),
      };
    },
  );

  app.post(
    '/api/admin/users/:id/restore',
    { schema: { body: RestoreRequest, response: { 200: SuspensionResponse } } },
    async (request) => {
      const outcome = await ctx.suspension.restoreUser(
        actorOf(request),
        targetId(request.params),
        request.body.reason,
      );
      await tellGame(request, outcome);
      return {
        message: outcome.changed ? 'Account restored' : 'Account was not suspended',
        user: adminEntry(outcome.user),
      };
    },
  );

  app.get(
    '/api/admin/audit',
    { schema: { querystring: AuditQuery, response: { 200: AuditPage } } },
    async (request) => auditPage(ctx.deps.db, request.query),
  );

  app.post(
    '/api/admin/updateRole',
    { schema: { body: UpdateRoleRequest, response: { 200: UpdateRoleAnswer, 202: UpdateRoleAnswer } } },
    async (request, reply) => {
      const { role, email, currentPassword } = request.body;
      // Superuser and admin need a second admin: the call opens a request and nothing changes yet.
      if (ROLES_NEEDING_APPROVAL.includes(role)) {
        const target = await findUserByEmail(ctx.deps.db, email);
        if (!target) throw notFound('No user has this email');
        if (target.role === role) return { message: 'Role unchanged' };
        const opened = await ctx.approvals.openApproval(
          actingOf(request, currentPassword),
          { kind: 'role', target, role },
          callerOf(request),
        );
        if (opened.pending)
          return reply.code(202).send({ message: PENDING_MESSAGE, approval: opened.approval });
        if (!opened.role?.changed) return { message: 'Role unchanged' };
        const { userId, roleVersion } = opened.role;
        if (await tellGameRoleOrWarn(ctx, request, { userId, role, roleVersion }))
          return { message: 'Role updated', approval: opened.approval };
        return reply.code(202).send({ message: GAME_LATE_MESSAGE, approval: opened.approval });
      }
      const result = await ctx.admin.updateRole(email, role, actorOf(request));
      if (!result.changed) return { message: 'Role unchanged' };
      // Read-your-writes: the game has the new role before this answers, or the admin is told it has not.
      if (
        await tellGameRoleOrWarn(ctx, request, {
          userId: result.userId,
          role,
          roleVersion: result.roleVersion,
        })
      )
        return { message: 'Role updated' };
      return reply.code(202).send({ message: GAME_LATE_MESSAGE });
    },
  );
}
