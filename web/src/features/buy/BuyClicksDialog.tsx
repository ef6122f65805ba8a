import type { PackView, ProfileResponse } from '@omc/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { gameRulesQuery } from '../../api/game';
import { errorText } from '../../api/http';
import { queryKeys } from '../../api/keys';
import { clientTokenQuery, paymentsApi } from '../../api/payments';
import { watchPurchase } from '../../api/purchaseWatch';
import { Dialog } from '../../components/Dialog';
import { FormMessage } from '../../components/FormMessage';
import { useNotices } from '../../components/Notices';
import { formatCount, formatPrice } from '../../i18n/format';
import { useSession } from '../../session/SessionProvider';
import { DropInPaymentForm } from './DropInPaymentForm';
import { EmulatorPaymentForm } from './EmulatorPaymentForm';

export function BuyClicksDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Dialog open={open} onClose={onClose} title={t('purchaseClicksModal.title')} className="dialog--wide">
      <BuyClicks onClose={onClose} />
    </Dialog>
  );
}

function packLabel(
  pack: PackView,
  t: (key: string, values?: Record<string, unknown>) => string,
  language: string,
): string {
  return 'unlimited' in pack
    ? t('purchaseClicksModal.unlimited')
    : t('purchaseClicksModal.clicks', { clicks: formatCount(pack.clicks, language) });
}

function BuyClicks({ onClose }: { onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const { token } = useSession();
  const queryClient = useQueryClient();
  const { notify } = useNotices();
  const rules = useQuery(gameRulesQuery());
  const clientToken = useQuery(clientTokenQuery(token));
  const [packId, setPackId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const generic = t('purchaseClicksModal.errorMessageGeneric');

  const packs = rules.data?.packs ?? [];
  const pack = packs.find((p) => p.id === packId) ?? packs[0];
  const amount = pack ? pack.price.toFixed(2) : '';
  const priceLabel = pack ? formatPrice(pack.price, i18n.language) : '';

  const checkout = useMutation({
    mutationFn: (nonce: string) => paymentsApi.checkout(token!, { paymentMethodNonce: nonce, amount }),
    onSuccess: (result) => {
      if (!result.success) return setError(result.error || generic);
      notify({
        tone: 'success',
        key: 'purchaseClicksModal.success',
        values: { transactionId: result.transactionId },
      });
      watchPurchase(queryClient.getQueryData<ProfileResponse>(queryKeys.profile(token)));
      void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
      void queryClient.invalidateQueries({ queryKey: queryKeys.gameState });
      onClose();
    },
    onError: (failure) => setError(errorText(failure, generic)),
  });

  const pay = (nonce: string) => {
    setError(null);
    checkout.mutate(nonce);
  };

  return (
    <div className="buy">
      <fieldset className="packs">
        <legend>{t('purchaseClicksModal.choosePack')}</legend>
        {packs.map((p) => (
          <label
            key={p.id}
            className={`pack${p.id === pack?.id ? ' pack--selected' : ''}${'unlimited' in p ? ' pack--unlimited' : ''}`}
          >
            <input
              type="radio"
              name="pack"
              value={p.id}
              checked={p.id === pack?.id}
              onChange={() => setPackId(p.id)}
            />
            <span className="pack__clicks">{packLabel(p, t, i18n.language)}</span>
            <span className="pack__price num">{formatPrice(p.price, i18n.language)}</span>
          </label>
        ))}
      </fieldset>
      {rules.isError ? <FormMessage error={t('game.errors.rulesError')} /> : null}
      {clientToken.isPending ? <p className="muted">{t('purchaseClicksModal.loadingForm')}</p> : null}
      {clientToken.isError ? <FormMessage error={generic} /> : null}
      {clientToken.data && pack ? (
        clientToken.data.environment === 'emulator' ? (
          <EmulatorPaymentForm priceLabel={priceLabel} pending={checkout.isPending} onPay={pay} />
        ) : (
          <DropInPaymentForm
            clientToken={clientToken.data.clientToken}
            environment={clientToken.data.environment}
            amount={amount}
            priceLabel={priceLabel}
            pending={checkout.isPending}
            onPay={pay}
            onError={() => setError(generic)}
          />
        )
      ) : null}
      {!clientToken.isError ? <FormMessage error={error} /> : null}
    </div>
  );
}
