import type { ProfileResponse } from '@omc/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { adminApi } from '../../api/admin';
import { formatMoney } from '../../i18n/format';
import { ConfirmCollectDialog } from '../winnings/ConfirmCollectDialog';
import { PaymentMethodDialog } from '../winnings/PaymentMethodDialog';
import { useCollect } from '../winnings/useCollect';
import { isEmailNotVerified } from '../winnings/VerifyFirst';

/** The house pot and its payout to the admin's PayPal email. */
export function AdminPotPanel({ profile }: { profile: ProfileResponse }) {
  const { t, i18n } = useTranslation();
  const [dialog, setDialog] = useState<'none' | 'method' | 'confirm'>('none');
  const collect = useCollect('admin', adminApi.collect, () => setDialog('none'));
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
      />
    </section>
  );
}
