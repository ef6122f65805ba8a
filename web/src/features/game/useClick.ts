// The +1 click: counter and balance move at once and are rolled back, with the error shown, when the
// server refuses (docs/client-contract.md). A refusal because the game is flooded (503) is no error: the page
// shows a calm busy state and retries after a growing pause (busyRetry.ts).
import type { GameState, ProfileResponse } from '@omc/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { gameApi } from '../../api/game';
import { generationOf } from '../../api/generations';
import { firstSightOfOwnWin } from '../../api/purchaseWatch';
import { errorText } from '../../api/http';
import { queryKeys } from '../../api/keys';
import { useNotices } from '../../components/Notices';
import { useSession } from '../../session/SessionProvider';
import { isBusyRefusal, withBusyRetry } from './busyRetry';
import { hasUnlimitedClicks } from './clickRules';

interface ClickContext {
  stateGeneration: number;
  profileGeneration: number;
  spent: boolean;
}

export function useClick() {
  const { token, role } = useSession();
  const queryClient = useQueryClient();
  const { notify } = useNotices();
  const { t } = useTranslation();
  const profileKey = queryKeys.profile(token);
  /** 'retrying' while a refused click waits for its next attempt; 'gaveUp' after the last one. */
  const [busy, setBusy] = useState<'retrying' | 'gaveUp' | null>(null);

  const mutation = useMutation<Awaited<ReturnType<typeof gameApi.click>>, unknown, void, ClickContext>({
    mutationFn: () =>
      withBusyRetry(
        () => gameApi.click(token!),
        (on) => setBusy(on ? 'retrying' : null),
      ),
    onMutate: async () => {
      await queryClient.cancelQueries({ queryKey: queryKeys.gameState });
      queryClient.setQueryData<GameState>(queryKeys.gameState, (state) =>
        state ? { ...state, globalClicks: state.globalClicks + 1 } : state,
      );
      const profile = queryClient.getQueryData<ProfileResponse>(profileKey);
      const spent = Boolean(
        profile &&
        typeof profile.freeClicks === 'number' &&
        !hasUnlimitedClicks({ ...profile, role: role ?? profile.role }),
      );
      if (spent) {
        queryClient.setQueryData<ProfileResponse>(profileKey, (p) =>
          p && p.freeClicks !== null ? { ...p, freeClicks: Math.max(0, p.freeClicks - 1) } : p,
        );
      }
      return {
        stateGeneration: generationOf('gameState'),
        profileGeneration: generationOf('profile'),
        spent,
      };
    },
    onError: (error, _variables, context) => {
      // Undo this click's +1 and -1 unless the server has since sent a newer figure (which never
      // contained the refused click).
      if (context && generationOf('gameState') === context.stateGeneration) {
        queryClient.setQueryData<GameState>(queryKeys.gameState, (state) =>
          state ? { ...state, globalClicks: Math.max(0, state.globalClicks - 1) } : state,
        );
      }
      if (context?.spent && generationOf('profile') === context.profileGeneration) {
        queryClient.setQueryData<ProfileResponse>(profileKey, (p) =>
          p && p.freeClicks !== null ? { ...p, freeClicks: p.freeClicks + 1 } : p,
        );
      }
      if (isBusyRefusal(error)) setBusy('gaveUp');
      else notify({ tone: 'error', text: errorText(error, t('game.errors.clickError')) });
    },
    onSuccess: (result) => {
      setBusy(null);
      // The click's answer carries the balance, so a click costs one request. The profile is read
      // again only when the click shows something only the profile can follow: an unlimited flag that
      // changed (a role change or a pass) or a win (the winnings).
      const before = queryClient.getQueryData<ProfileResponse>(profileKey);
      const unlimitedChanged =
        result.hasInfiniteClicks !== undefined &&
        before !== undefined &&
        result.hasInfiniteClicks !== before.hasInfiniteClicks;
      queryClient.setQueryData<ProfileResponse>(profileKey, (p) =>
        p
          ? {
              ...p,
              freeClicks: result.freeClicks,
              ...(result.purchasedClicks !== undefined ? { purchasedClicks: result.purchasedClicks } : {}),
              ...(result.hasInfiniteClicks !== undefined
                ? { hasInfiniteClicks: result.hasInfiniteClicks }
                : {}),
            }
          : p,
      );
      // A win is read once: here, or by its winner event if that came first (purchaseWatch.ts).
      const ownWin = result.won === true && firstSightOfOwnWin('click', before?.potEarned);
      if (unlimitedChanged || ownWin) void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
    },
  });
  return Object.assign(mutation, { busy });
}
