import type { ProfileResponse } from '@omc/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatMoney } from '../../i18n/format';
import { ConfirmCollectDialog } from './ConfirmCollectDialog';
import { PaymentMethodDialog } from './PaymentMethodDialog';
import { useCollect } from './useCollect';
import { isEmailNotVerified } from './VerifyFirst';

/** Uncollected winnings: Transfer with a PayPal email set, Configure without one (docs/client-contract.md). */
export function PendingWinnings({ profile }: { profile: ProfileResponse }) {
  const { t, i18n } = useTranslation();
  const [dialog, setDialog] = useState<'none' | 'method' | 'confirm'>('none');
  const collect = useCollect('winnings', () => setDialog('none'));
  const amount = profile.potEarned ?? 0;
  // Collecting needs a verified email: known from the profile, or from the server's refusal.
  const unverified = profile.emailVerified === false || isEmailNotVerified(collect.error);
  if (amount <= 0 && dialog === 'none') return null;
  const formatted = formatMoney(amount, i18n.language);

  return (
    <section className="winnings" aria-label={t('winnings.title')}>
      {amount > 0 ? (
        <>
          <p className="winnings__text">{t('winnings.pending', { amount: formatted })}</p>
          {profile.paypalEmail ? (
            <button type="button" className="btn btn--gold" onClick={() => setDialog('confirm')}>
              {t('winnings.transfer')}
            </button>
          ) : (
            <button type="button" className="btn btn--gold" onClick={() => setDialog('method')}>
              {t('winnings.configure')}
            </button>
          )}
        </>
      ) : null}
      <PaymentMethodDialog
        open={dialog === 'method'}
        currentEmail={profile.paypalEmail}
        onClose={() => setDialog('none')}
      />
      <ConfirmCollectDialog
        open={dialog === 'confirm' && Boolean(profile.paypalEmail)}
        title={t('winnings.confirmTitle')}
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
