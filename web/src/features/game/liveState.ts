// The game's state and the player count as the server sends them; after the player's own purchase, a
// pot change (the purchase reaching the game) reads the profile again, at most once a second.
import { GameStateUpdate, UserCountUpdate, type GameState } from '@omc/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { markServerData } from '../../api/generations';
import { queryKeys } from '../../api/keys';
import { awaitingPurchase, PROFILE_RELOAD_MS } from '../../api/purchaseWatch';
import type { GameSocket } from './gameSocket';

export function followState(
  socket: GameSocket,
  queryClient: QueryClient,
  setUserCount: (count: number) => void,
) {
  let lastPot: number | null = null;
  let profileTimer: ReturnType<typeof setTimeout> | null = null;
  const reloadProfile = () => {
    if (profileTimer) return;
    profileTimer = setTimeout(() => {
      profileTimer = null;
      void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
    }, PROFILE_RELOAD_MS);
  };
  socket.on('gameStateUpdate', (payload) => {
    const state = GameStateUpdate.safeParse(payload);
    if (!state.success) return console.warn('ignored a malformed gameStateUpdate', state.error);
    markServerData('gameState');
    queryClient.setQueryData<GameState>(queryKeys.gameState, state.data);
    if (lastPot !== null && state.data.pot !== lastPot && awaitingPurchase()) reloadProfile();
    lastPot = state.data.pot;
  });
  socket.on('userCountUpdate', (payload) => {
    const count = UserCountUpdate.safeParse(payload);
    if (count.success) setUserCount(count.data);
  });
  return () => {
    if (profileTimer) clearTimeout(profileTimer);
  };
}
