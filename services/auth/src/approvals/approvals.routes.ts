// The two-admin requests' routes (approvals.service.ts): the house collect opens one; every admin lists
// them; another admin approves or refuses. Bodies are optional (the original client posts none to collect).
import {
  AdminCollectAnswer,
  AdminCollectRequest,
  ApprovalDecision,
  ApprovalIdParams,
  ApprovalPending,
  ApprovalsAnswer,
  ApprovalsQuery,
  ApproveRequest,
  RefuseRequest,
} from '@omc/contracts';
import { badRequest, callerOf, freshAuthority } from '@omc/service-kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { GAME_LATE_MESSAGE, tellGameRoleOrWarn } from '../admin/game-role-sync.js';
import { optionalJsonBody } from '../body-less.js';
import type { AuthContext } from '../context.js';
import { accountOf, signedIn } from '../users/current-user.js';
import type { Acting } from './approvals.service.js';

export const PENDING_MESSAGE =
  'Waiting for a second admin: another admin must approve this request before it is carried out';

export const actingOf = (request: FastifyRequest, currentPassword: string | undefined): Acting => ({
  user: accountOf(request),
  signedInAt: request.signedInAt,
  currentPassword,
  ip: request.ip,
});

/** The :id of the path, checked after the body so a bad body is named first (as on every route). */
function approvalId(params: unknown): string {
  const parsed = ApprovalIdParams.safeParse(params);
  if (!parsed.success) throw badRequest('id must be an approval request id', 'id');
  return parsed.data.id;
}

export async function approvalRoutes(scope: FastifyInstance, ctx: AuthContext): Promise<void> {
  scope.addHook('onRequest', signedIn(ctx));
  // As on every admin route: the role the database has now, before the body is read.
  scope.addHook(
    'onRequest',
    freshAuthority(async (request) => ({ userId: accountOf(request).id, role: accountOf(request).role }), {
      role: 'admin',
    }),
  );
  optionalJsonBody(scope);
  const app = scope.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/api/admin/collect',
    {
      schema: {
        body: AdminCollectRequest,
        response: { 200: AdminCollectAnswer, 202: ApprovalPending },
      },
    },
    async (request, reply) => {
      const opened = await ctx.approvals.openApproval(
        actingOf(request, request.body?.currentPassword),
        { kind: 'housePayout' },
        callerOf(request),
      );
      if (opened.pending)
        return reply.code(202).send({ message: PENDING_MESSAGE, approval: opened.approval });
      return { ...opened.payout!, approval: opened.approval };
    },
  );

  app.post(
    '/api/admin/approvals/:id/approve',
    { schema: { body: ApproveRequest, response: { 200: ApprovalDecision, 202: ApprovalDecision } } },
    async (request, reply) => {
      const id = approvalId(request.params);
      const acting = actingOf(request, request.body?.currentPassword);
      const result = await ctx.approvals.approveApproval(acting, id, callerOf(request));
      if (result.role?.changed) {
        const { userId, roleVersion, role } = result.role;
        if (await tellGameRoleOrWarn(ctx, request, { userId, role, roleVersion }))
          return { message: 'Approved: role updated', approval: result.approval };
        return reply.code(202).send({ message: GAME_LATE_MESSAGE, approval: result.approval });
      }
      return {
        message: result.payout ? 'Approved: the house pot was paid out' : 'Approved',
        approval: result.approval,
        ...(result.payout ? { payout: result.payout } : {}),
      };
    },
  );

  app.post(
    '/api/admin/approvals/:id/refuse',
    { schema: { body: RefuseRequest, response: { 200: ApprovalDecision } } },
    async (request) => {
      const id = approvalId(request.params);
      const approval = await ctx.approvals.refuseApproval(
        actingOf(request, undefined),
        id,
        request.body?.reason,
      );
      return { message: 'Refused: nothing was done', approval };
    },
  );

  app.get(
    '/api/admin/approvals',
    { schema: { querystring: ApprovalsQuery, response: { 200: ApprovalsAnswer } } },
    async (request) => ({ approvals: await ctx.approvals.approvalsList(request.query.status) }),
  );
}
