// Read-your-writes for role changes: before updateRole answers, the game is told the new role with the
// change's version (auth's sequence, the role event's roleVersion), so the target's very next click has
// it. The game applies it only when newer than what it holds: the event that follows is a no-op, an
// older one never wins. No clock travels.
// If the game does not confirm in time the change still stands and the event brings it there.
import { InternalRoleApplied, internalUserRolePath, type Role } from '@omc/contracts';
import { callerOf, forwardedHeaders, type Caller } from '@omc/service-kit';
import type { FastifyRequest } from 'fastify';
import type { AuthContext } from '../context.js';
import type { Deps } from '../deps.js';

export type GameSyncResult = { confirmed: true } | { confirmed: false; reason: string };

export async function tellGameTheRole(
  deps: Deps,
  caller: Caller,
  change: { userId: string; role: Role; roleVersion: number },
): Promise<GameSyncResult> {
  // The admin's own token: the game checks it like any other internal caller's.
  const headers = {
    ...forwardedHeaders(caller),
    ...deps.credentials.headersFor('game'),
    'content-type': 'application/json',
  };
  try {
    const response = await deps.fetch(
      `${deps.config.GAME_INTERNAL_URL}${internalUserRolePath(change.userId)}`,
      {
        method: 'PUT',
        headers,
        body: JSON.stringify({ role: change.role, roleVersion: change.roleVersion }),
        signal: AbortSignal.timeout(deps.config.UPSTREAM_TIMEOUT_MS),
      },
    );
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return { confirmed: false, reason: `status ${response.status}` };
    }
    const parsed = InternalRoleApplied.safeParse(await response.json());
    if (!parsed.success) return { confirmed: false, reason: 'answer does not match the contract' };
    return { confirmed: true };
  } catch (error) {
    const name = (error as Error).name;
    return { confirmed: false, reason: name === 'TimeoutError' ? 'timed out' : (error as Error).message };
  }
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
