import {
  AdminCollectRequest,
  AdminUsersAnswer,
  ApprovalDecision,
  ApprovalIdParams,
  ApprovalPending,
  ApprovalsAnswer,
  ApprovalsQuery,
  ApproveRequest,
  RefuseRequest,
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
  type Role,
} from '@omc/contracts';
import { badRequest, callerOf, freshAuthority, notFound } from '@omc/service-kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthContext } from '../context.js';
import {
  approvalsList,
  approveApproval,
  openApproval,
  refuseApproval,
  type Acting,
} from '../approvals/approvals.service.js';
import { auditPage } from '../audit/audit.service.js';
import { optionalJsonBody } from '../body-less.js';
import { accountOf, signedIn } from '../users/current-user.js';
import { findUserByEmail, listUsers } from '../users/users.repo.js';
import { updateRole } from './admin.service.js';
import { balancesOf } from './balances.js';
import { adminEntry, usersPage } from './directory.service.js';
import { tellGameTheRole } from './game-role-sync.js';
import { tellGameTheSuspension } from './game-suspension-sync.js';
import { restoreUser, suspendUser, type Actor, type SuspensionOutcome } from './suspension.service.js';

const actorOf = (request: FastifyRequest): Actor => {
  const account = accountOf(request);
  return { id: account.id, username: account.username, ip: request.ip };
};

const recordedAuthority = async (request: FastifyRequest) => {
  const account = accountOf(request);
  return { userId: account.id, role: account.role };
};

const actingOf = (request: FastifyRequest, currentPassword: string | undefined): Acting => ({
  user: accountOf(request),
  signedInAt: request.signedInAt,
  currentPassword,
  ip: request.ip,
});

const PENDING_MESSAGE =
  'Waiting for a second admin: another admin must approve this request before it is carried out';
const GAME_LATE_MESSAGE =
  "Role updated. The game did not confirm it in time: the player's clicks may follow the old role for a few seconds.";

function approvalId(params: unknown): string {
  const parsed = ApprovalIdParams.safeParse(params);
  if (!parsed.success) throw badRequest('id must be an approval request id', 'id');
  return parsed.data.id;
}

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
      const outcome = await suspendUser(ctx, actorOf(request), targetId(request.params), request.body.reason);
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
      const outcome = await restoreUser(ctx, actorOf(request), targetId(request.params), request.body.reason);
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

  /** Before the admin is answered, the game has the role (the event that follows is then a no-op). */
  const tellGameRole = async (
    request: FastifyRequest,
    change: { userId: string; role: Role; roleVersion: number },
  ): Promise<boolean> => {
    const told = await tellGameTheRole(ctx.deps, callerOf(request), change);
    if (!told.confirmed)
      request.log.warn({ reason: told.reason, userId: change.userId }, 'the game did not confirm a role change');
    return told.confirmed;
  };

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
        const approval = await openApproval(ctx, actingOf(request, currentPassword), {
          kind: 'role',
          target,
          role,
        });
        return reply.code(202).send({ message: PENDING_MESSAGE, approval });
      }
      const result = await updateRole(ctx, email, role, actorOf(request));
      if (!result.changed) return { message: 'Role unchanged' };
      // Read-your-writes: the game has the new role before this answers, or the admin is told it has not.
      if (await tellGameRole(request, { userId: result.userId, role, roleVersion: result.roleVersion }))
        return { message: 'Role updated' };
      return reply.code(202).send({ message: GAME_LATE_MESSAGE });
    },
  );

  await app.register(async (optionalBody) => {
    optionalJsonBody(optionalBody);
    const typed = optionalBody.withTypeProvider<ZodTypeProvider>();

    typed.post(
      '/api/admin/collect',
      { schema: { body: AdminCollectRequest, response: { 202: ApprovalPending } } },
      async (request, reply) => {
        const approval = await openApproval(ctx, actingOf(request, request.body?.currentPassword), {
          kind: 'housePayout',
        });
        return reply.code(202).send({ message: PENDING_MESSAGE, approval });
      },
    );

    typed.post(
      '/api/admin/approvals/:id/approve',
      { schema: { body: ApproveRequest, response: { 200: ApprovalDecision } } },
      async (request) => {
        const id = approvalId(request.params);
        const acting = actingOf(request, request.body?.currentPassword);
        const result = await approveApproval(ctx, acting, id, callerOf(request));
        if (result.role?.changed) {
          const { userId, roleVersion, role } = result.role;
          const confirmed = await tellGameRole(request, { userId, role, roleVersion });
          return { message: confirmed ? 'Approved: role updated' : GAME_LATE_MESSAGE, approval: result.approval };
        }
        return {
          message: result.payout ? 'Approved: the house pot was paid out' : 'Approved',
          approval: result.approval,
          ...(result.payout ? { payout: result.payout } : {}),
        };
      },
    );

    typed.post(
      '/api/admin/approvals/:id/refuse',
      { schema: { body: RefuseRequest, response: { 200: ApprovalDecision } } },
      async (request) => {
        const id = approvalId(request.params);
        const approval = await refuseApproval(ctx, actingOf(request, undefined), id, request.body?.reason);
        return { message: 'Refused: nothing was done', approval };
      },
    );
  });

  app.get(
    '/api/admin/approvals',
    { schema: { querystring: ApprovalsQuery, response: { 200: ApprovalsAnswer } } },
    async (request) => ({ approvals: await approvalsList(ctx, request.query.status) }),
  );
}
