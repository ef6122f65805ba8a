// Collecting winnings or the admin pot (docs/client-contract.md): the balance drops to 0 at once and comes back
// if the payout fails; success shows the transaction id and reloads the profile.
import type { CollectResponse, ProfileResponse } from '@omc/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../api/http';
import { queryKeys } from '../../api/keys';
import { useNotices } from '../../components/Notices';
import { useSession } from '../../session/SessionProvider';
import { isEmailNotVerified } from './VerifyFirst';

type Kind = 'winnings' | 'admin';

/** `send` is the call that collects: the player's (api/payments) or the operator's (api/admin). */
export function useCollect(
  kind: Kind,
  send: (token: string) => Promise<CollectResponse>,
  onDone?: () => void,
) {
  const { token } = useSession();
  const queryClient = useQueryClient();
  const { notify } = useNotices();
  const { t } = useTranslation();
  const key = queryKeys.profile(token);
  const field = kind === 'winnings' ? 'potEarned' : 'adminBalance';

  return useMutation({
    mutationFn: () => send(token!),
    onMutate: () => {
      const before = queryClient.getQueryData<ProfileResponse>(key)?.[field] ?? null;
      queryClient.setQueryData<ProfileResponse>(key, (p) => (p ? { ...p, [field]: 0 } : p));
      return { before };
    },
    onError: (error, _v, context) => {
      queryClient.setQueryData<ProfileResponse>(key, (p) =>
        p ? { ...p, [field]: context?.before ?? p[field] } : p,
      );
      // An unverified email is explained in the payout dialog itself, with the link to send again.
      if (isEmailNotVerified(error)) return;
      const fallback = kind === 'winnings' ? t('game.errors.collectError') : t('profile.adminCollectError');
      notify({ tone: 'error', text: errorText(error, fallback) });
    },
    onSuccess: (result) => {
      notify({
        tone: 'success',
        key: 'winnings.collectSuccess',
        values: { transactionId: result.transactionId },
      });
      onDone?.();
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.profileAll }),
  });
}
