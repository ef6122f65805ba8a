// A round's winner: announced to everyone, the winners list read again, and the profiles with it (the
// round's end expires its purchases); the player's own win read until its credit shows.
import { WinnerEvent, type ProfileResponse } from '@omc/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { useRef, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { queryKeys } from '../../api/keys';
import { awaitingWinnings, firstSightOfOwnWin, PROFILE_RELOAD_MS } from '../../api/purchaseWatch';
import { useNotices } from '../../components/Notices';
import { formatMoney } from '../../i18n/format';
import type { GameSocket } from './gameSocket';

type Announce = (winner: z.infer<typeof WinnerEvent>) => void;

/** The winner's notice, in the page's language at the time it arrives. */
export function useWinnerNotice(): RefObject<Announce> {
  const { notify } = useNotices();
  const { language } = useTranslation().i18n;
  const announce = useRef<Announce>(null!);
  announce.current = ({ username, pot }) =>
    notify({
      tone: 'winner',
      key: 'game.winnerAlert',
      values: { username, pot: formatMoney(pot, language) },
    });
  return announce;
}

export function followWinners(
  socket: GameSocket,
  queryClient: QueryClient,
  announce: RefObject<Announce>,
  tokenRef: RefObject<string | null>,
  username: string | null,
) {
  let winningsPoll: ReturnType<typeof setInterval> | null = null;
  socket.on('winner', (payload) => {
    const winner = WinnerEvent.safeParse(payload);
    if (!winner.success) return console.warn('ignored a malformed winner event', winner.error);
    announce.current(winner.data);
    void queryClient.invalidateQueries({ queryKey: queryKeys.winners });
    const own = Boolean(tokenRef.current) && winner.data.username === username;
    const profile = own
      ? queryClient.getQueryData<ProfileResponse>(queryKeys.profile(tokenRef.current))
      : undefined;
    // The round's end changes every player's profile (this round's purchases expire); the player's own
    // win is read once, here or by its click's answer if that came first (purchaseWatch.ts).
    if (!own || firstSightOfOwnWin('event', profile?.potEarned))
      void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
    // The player's own win: its credit may land after the read, so read again until it shows.
    if (own) {
      winningsPoll ??= setInterval(() => {
        if (awaitingWinnings()) return void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
        if (winningsPoll) clearInterval(winningsPoll);
        winningsPoll = null;
      }, PROFILE_RELOAD_MS);
    }
  });
  return () => {
    if (winningsPoll) clearInterval(winningsPoll);
  };
}
