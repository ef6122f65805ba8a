// Read-your-writes for suspensions, as for role changes (game-role-sync.ts): before the admin's call
// answers, the game is told, so the player's very next click is refused (or taken again after a
// restore). Ordered by the account's security version after the change, like the event that follows;
// if the game does not confirm in time the change still stands and the event brings it there.
import { INTERNAL } from '@omc/contracts';
import { outcomeReason, type Caller } from '@omc/service-kit';
import type { Deps } from '../deps.js';
import type { GameSyncResult } from './game-role-sync.js';

export async function tellGameTheSuspension(
  deps: Deps,
  caller: Caller,
  change: { userId: string; suspended: boolean; reason: string | null; securityVersion: number },
): Promise<GameSyncResult> {
  const told = await deps.internal.call(INTERNAL.userSuspension, {
    params: { userId: change.userId },
    body: { suspended: change.suspended, reason: change.reason, securityVersion: change.securityVersion },
    caller,
  });
  return told.kind === 'answered' ? { confirmed: true } : { confirmed: false, reason: outcomeReason(told) };
}
