import type { ProfileResponse } from '@omc/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { adminApi } from '../../api/admin';
import { errorText } from '../../api/http';
import { queryKeys } from '../../api/keys';
import { useNotices } from '../../components/Notices';
import { PasswordInput } from '../../components/PasswordInput';
import { formatMoney } from '../../i18n/format';
import { useSession } from '../../session/SessionProvider';
import { ConfirmCollectDialog } from '../winnings/ConfirmCollectDialog';
import { PaymentMethodDialog } from '../winnings/PaymentMethodDialog';
import { isEmailNotVerified } from '../winnings/VerifyFirst';

/**
 * The house pot and its payout to the admin's PayPal email. Once the game has had two admins, collecting
 * opens a request another admin approves (role manager) before anything is paid, so the balance stays
 * as it is until then; with one admin it is paid at once.
 */
export function AdminPotPanel({ profile }: { profile: ProfileResponse }) {
  const { t, i18n } = useTranslation();
  const { token } = useSession();
  const { notify } = useNotices();
  const queryClient = useQueryClient();
  const [dialog, setDialog] = useState<'none' | 'method' | 'confirm'>('none');
  const [currentPassword, setCurrentPassword] = useState('');
  const collect = useMutation({
    mutationFn: () => adminApi.collect(token!, currentPassword || undefined),
    onSuccess: (answer) => {
      setCurrentPassword('');
      setDialog('none');
      void queryClient.invalidateQueries({ queryKey: queryKeys.approvals });
      if (!('transactionId' in answer)) return notify({ tone: 'success', text: t('approvals.housePending') });
      // Paid at once: the game has one admin, so nobody else could approve.
      notify({
        tone: 'success',
        key: 'winnings.collectSuccess',
        values: { transactionId: answer.transactionId },
      });
      void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
    },
    onError: (error) => {
      if (isEmailNotVerified(error)) return;
      notify({ tone: 'error', text: errorText(error, t('profile.adminCollectError')) });
    },
  });
  const balance = profile.adminBalance;
  // Collecting needs a verified email: known from the profile, or from the server's refusal.
  const unverified = profile.emailVerified === false || isEmailNotVerified(collect.error);
  const formatted = balance === null ? '–' : formatMoney(balance, i18n.language);
  return (
    <section className="card admin-pot" aria-labelledby="admin-pot-title">
      <h2 id="admin-pot-title" className="card__title">
        {t('profile.adminPot')}
      </h2>
      <p className="admin-pot__value num" data-testid="admin-balance">
        {formatted}
      </p>
      <button
        type="button"
        className="btn btn--gold"
        disabled={!balance || balance <= 0 || collect.isPending}
        onClick={() => setDialog(profile.paypalEmail ? 'confirm' : 'method')}
      >
        {t('profile.adminCollect')}
      </button>
      <PaymentMethodDialog
        open={dialog === 'method'}
        currentEmail={profile.paypalEmail}
        onClose={() => setDialog('none')}
      />
      <ConfirmCollectDialog
        open={dialog === 'confirm' && Boolean(profile.paypalEmail)}
        title={t('profile.adminPayoutTitle')}
        amount={formatted}
        email={profile.paypalEmail ?? ''}
        pending={collect.isPending}
        verifyEmail={unverified ? (profile.email ?? '') : null}
        onEdit={() => setDialog('method')}
        onCancel={() => setDialog('none')}
        onConfirm={() => collect.mutate()}
      >
        <p>{t('approvals.houseNeedsSecond')}</p>
        <PasswordInput
          id="admin-collect-password"
          label={t('approvals.password')}
          value={currentPassword}
          onChange={(e) => setCurrentPassword(e.target.value)}
        />
      </ConfirmCollectDialog>
    </section>
  );
}
