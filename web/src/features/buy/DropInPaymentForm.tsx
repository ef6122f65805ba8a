// The provider's embedded payment form (the client contract, buy flow): built from the client token, rebuilt
// when the amount changes, confirm enabled once a method is requestable; a PayPal nonce is reused until
// a different pack is chosen.
import type { Dropin } from 'braintree-web-drop-in';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

export function DropInPaymentForm({
  clientToken,
  environment,
  amount,
  priceLabel,
  pending,
  onPay,
  onError,
}: {
  clientToken: string;
  /** The gateway's environment: Google Pay runs in PRODUCTION only against production. */
  environment: 'sandbox' | 'production' | undefined;
  amount: string;
  priceLabel: string;
  pending: boolean;
  onPay: (nonce: string) => void;
  onError: () => void;
}) {
  const { t, i18n } = useTranslation();
  const container = useRef<HTMLDivElement>(null);
  const instance = useRef<Dropin | null>(null);
  const paypalNonce = useRef<{ amount: string; nonce: string } | null>(null);
  const [requestable, setRequestable] = useState(false);
  const [building, setBuilding] = useState(true);
  const onErrorRef = useRef(onError);
  onErrorRef.current = onError;

  useEffect(() => {
    let cancelled = false;
    let built: Dropin | null = null;
    setBuilding(true);
    setRequestable(false);
    if (paypalNonce.current?.amount !== amount) paypalNonce.current = null;
    const totalPrice = { totalPriceStatus: 'FINAL', totalPrice: amount, currencyCode: 'EUR' };
    import('braintree-web-drop-in')
      .then(({ default: dropin }) =>
        dropin.create({
          authorization: clientToken,
          container: container.current!,
          locale: i18n.language,
          vaultManager: true,
          card: { cardholderName: { required: false } },
          paypal: { flow: 'checkout', amount, currency: 'EUR' },
          paypalCredit: { flow: 'checkout', amount, currency: 'EUR' },
          venmo: {},
          applePay: {
            displayName: t('app.title'),
            paymentRequest: { total: { label: t('app.title'), amount }, requiredBillingContactFields: [] },
          },
          googlePay: {
            googlePayVersion: 2,
            environment: environment === 'production' ? 'PRODUCTION' : 'TEST',
            transactionInfo: totalPrice,
          },
        }),
      )
      .then((created) => {
        built = created;
        if (cancelled) return void created.teardown();
        instance.current = created;
        setBuilding(false);
        setRequestable(created.isPaymentMethodRequestable());
        created.on('paymentMethodRequestable', () => setRequestable(true));
        created.on('noPaymentMethodRequestable', () => setRequestable(false));
      })
      .catch((error: unknown) => {
        if (cancelled) return;
        console.error('payment form could not be built', error);
        setBuilding(false);
        onErrorRef.current();
      });
    return () => {
      cancelled = true;
      instance.current = null;
      if (built) void built.teardown().catch(() => undefined);
    };
  }, [clientToken, environment, amount, i18n.language, t]);

  const pay = async () => {
    if (paypalNonce.current?.amount === amount) return onPay(paypalNonce.current.nonce);
    try {
      const payload = await instance.current!.requestPaymentMethod();
      if (payload.type === 'PayPalAccount') paypalNonce.current = { amount, nonce: payload.nonce };
      onPay(payload.nonce);
    } catch (error) {
      console.error('no payment method', error);
      onErrorRef.current();
    }
  };

  return (
    <div className="dropin">
      {building ? <p className="muted">{t('purchaseClicksModal.loadingForm')}</p> : null}
      <div ref={container} />
      <button
        type="button"
        className="btn btn--primary btn--block"
        disabled={building || !requestable || pending}
        onClick={pay}
      >
        {t('purchaseClicksModal.pay', { price: priceLabel })}
      </button>
    </div>
  );
}
