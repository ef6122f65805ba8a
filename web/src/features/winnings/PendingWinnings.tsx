import type { ProfileResponse } from '@omc/contracts';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { paymentsApi } from '../../api/payments';
import { formatMoney } from '../../i18n/format';
import { useCollect } from './useCollect';
import { isEmailNotVerified } from './VerifyFirst';

// The dialogs load when a player opens one, not with the game's first screen.
const PaymentMethodDialog = lazy(() =>
  import('./PaymentMethodDialog').then((m) => ({ default: m.PaymentMethodDialog })),
);
const ConfirmCollectDialog = lazy(() =>
  import('./ConfirmCollectDialog').then((m) => ({ default: m.ConfirmCollectDialog })),
);

/** Uncollected winnings: Transfer with a PayPal email set, Configure without one (docs/client-contract.md). */
export function PendingWinnings({ profile }: { profile: ProfileResponse }) {
  const { t, i18n } = useTranslation();
  const [dialog, setDialog] = useState<'none' | 'method' | 'confirm'>('none');
  const collect = useCollect('winnings', paymentsApi.collect, () => setDialog('none'));
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
          {profile.payoutHeld ? (
            <p className="winnings__text">{t('winnings.held', { reason: profile.payoutHeld })}</p>
          ) : null}
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
      <Suspense fallback={null}>
        {dialog === 'method' ? (
          <PaymentMethodDialog open currentEmail={profile.paypalEmail} onClose={() => setDialog('none')} />
        ) : null}
        {dialog === 'confirm' && profile.paypalEmail ? (
          <ConfirmCollectDialog
            open
            title={t('winnings.confirmTitle')}
            amount={formatted}
            email={profile.paypalEmail}
            pending={collect.isPending}
            verifyEmail={unverified ? (profile.email ?? '') : null}
            onEdit={() => setDialog('method')}
            onCancel={() => setDialog('none')}
            onConfirm={() => collect.mutate()}
          />
        ) : null}
      </Suspense>
    </section>
  );
}
