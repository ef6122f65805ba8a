// Read-your-writes for suspensions, as for role changes (game-role-sync.ts): before the admin's call
// answers, the game is told, so the player's very next click is refused (or taken again after a
// restore). Ordered by the account's security version after the change, like the event that follows;
// if the game does not confirm in time the change still stands and the event brings it there.
import { InternalSuspensionApplied, internalUserSuspensionPath } from '@omc/contracts';
import { forwardedHeaders, type Caller } from '@omc/service-kit';
import type { Deps } from '../deps.js';
import type { GameSyncResult } from './game-role-sync.js';

export async function tellGameTheSuspension(
  deps: Deps,
  caller: Caller,
  change: { userId: string; suspended: boolean; reason: string | null; securityVersion: number },
): Promise<GameSyncResult> {
  const headers = {
    ...forwardedHeaders(caller),
    ...deps.credentials.headersFor('game'),
    'content-type': 'application/json',
  };
  try {
    const response = await deps.fetch(
      `${deps.config.GAME_INTERNAL_URL}${internalUserSuspensionPath(change.userId)}`,
      {
        method: 'PUT',
        headers,
        body: JSON.stringify({
          suspended: change.suspended,
          reason: change.reason,
          securityVersion: change.securityVersion,
        }),
        signal: AbortSignal.timeout(deps.config.UPSTREAM_TIMEOUT_MS),
      },
    );
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return { confirmed: false, reason: `status ${response.status}` };
    }
    const parsed = InternalSuspensionApplied.safeParse(await response.json());
    if (!parsed.success) return { confirmed: false, reason: 'answer does not match the contract' };
    return { confirmed: true };
  } catch (error) {
    const name = (error as Error).name;
    return { confirmed: false, reason: name === 'TimeoutError' ? 'timed out' : (error as Error).message };
  }
}
