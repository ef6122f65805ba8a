import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** The local emulator's published test nonces (no real card or account is involved). */
export const TEST_NONCES = [
  { nonce: 'fake-valid-nonce', labelKey: 'purchaseClicksModal.test.validCard' },
  { nonce: 'fake-processor-declined-visa-nonce', labelKey: 'purchaseClicksModal.test.declinedCard' },
  { nonce: 'fake-paypal-one-time-nonce', labelKey: 'purchaseClicksModal.test.paypal' },
] as const;

/**
 * Offline payment form: the local provider emulator cannot serve the provider's scripts, so the
 * player picks one of its test nonces instead. Clearly labelled so nobody mistakes it for a real one.
 */
export function EmulatorPaymentForm({
  priceLabel,
  pending,
  onPay,
}: {
  priceLabel: string;
  pending: boolean;
  onPay: (nonce: string) => void;
}) {
  const { t } = useTranslation();
  const [nonce, setNonce] = useState<string>(TEST_NONCES[0].nonce);
  return (
    <div className="test-payment">
      <p className="test-payment__badge" role="note">
        {t('purchaseClicksModal.test.badge')}
      </p>
      <fieldset className="choices">
        <legend>{t('purchaseClicksModal.test.legend')}</legend>
        {TEST_NONCES.map((option) => (
          <label key={option.nonce} className="choice">
            <input
              type="radio"
              name="test-nonce"
              value={option.nonce}
              checked={nonce === option.nonce}
              onChange={() => setNonce(option.nonce)}
            />
            <span>{t(option.labelKey)}</span>
          </label>
        ))}
      </fieldset>
      <button
        type="button"
        className="btn btn--primary btn--block"
        disabled={pending}
        onClick={() => onPay(nonce)}
      >
        {t('purchaseClicksModal.pay', { price: priceLabel })}
      </button>
    </div>
  );
}
