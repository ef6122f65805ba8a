// Read-your-writes for role changes: before updateRole answers, the game is told the new role with the
// change's version (auth's sequence, the role event's roleVersion), so the target's very next click has
// it. The game applies it only when newer than what it holds: the event that follows is a no-op, an
// older one never wins. No clock travels.
// If the game does not confirm in time the change still stands and the event brings it there.
import { INTERNAL, type Role } from '@omc/contracts';
import { callerOf, outcomeReason, type Caller } from '@omc/service-kit';
import type { FastifyRequest } from 'fastify';
import type { AuthContext } from '../context.js';
import type { Deps } from '../deps.js';

export type GameSyncResult = { confirmed: true } | { confirmed: false; reason: string };

export async function tellGameTheRole(
  deps: Deps,
  caller: Caller,
  change: { userId: string; role: Role; roleVersion: number },
): Promise<GameSyncResult> {
  // The admin's own token goes along: the game checks it like any other internal caller's.
  const told = await deps.internal.call(INTERNAL.userRole, {
    params: { userId: change.userId },
    body: { role: change.role, roleVersion: change.roleVersion },
    caller,
  });
  return told.kind === 'answered' ? { confirmed: true } : { confirmed: false, reason: outcomeReason(told) };
}

export const GAME_LATE_MESSAGE =
  "Role updated. The game did not confirm it in time: the player's clicks may follow the old role for a few seconds.";

/** Tells the game with the request's caller; whether it confirmed (a warning is logged when not). */
export async function tellGameRoleOrWarn(
  ctx: AuthContext,
  request: FastifyRequest,
  change: { userId: string; role: Role; roleVersion: number },
): Promise<boolean> {
  const told = await tellGameTheRole(ctx.deps, callerOf(request), change);
  if (!told.confirmed)
    request.log.warn(
      { reason: told.reason, userId: change.userId },
      'the game did not confirm a role change',
    );
  return told.confirmed;
}
