import { validatePaymentMethodForm } from '@omc/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '../../api/http';
import { queryKeys } from '../../api/keys';
import { paymentsApi } from '../../api/payments';
import { Dialog } from '../../components/Dialog';
import { FormMessage } from '../../components/FormMessage';
import { TextField } from '../../components/TextField';
import { useSession } from '../../session/SessionProvider';

/** The PayPal email that winnings (and the admin pot) are paid to. */
export function PaymentMethodDialog({
  open,
  onClose,
  currentEmail,
  onSaved,
}: {
  open: boolean;
  onClose: () => void;
  currentEmail: string | null;
  onSaved?: () => void;
}) {
  return open ? <PaymentMethodForm onClose={onClose} currentEmail={currentEmail} onSaved={onSaved} /> : null;
}

function PaymentMethodForm({
  onClose,
  currentEmail,
  onSaved,
}: {
  onClose: () => void;
  currentEmail: string | null;
  onSaved?: () => void;
}) {
  const { t } = useTranslation();
  const { token } = useSession();
  const queryClient = useQueryClient();
  const [paypalEmail, setPaypalEmail] = useState(currentEmail ?? '');
  const [error, setError] = useState<string | null>(null);

  const save = useMutation({
    mutationFn: (email: string) => paymentsApi.setPaymentMethod(token!, email),
    onSuccess: async (_r, email) => {
      queryClient.setQueryData(queryKeys.profile(token), (p: object | undefined) =>
        p ? { ...p, paypalEmail: email } : p,
      );
      void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
      onClose();
      onSaved?.();
    },
    onError: (failure) => setError(errorText(failure, t('paymentMethod.internalError'))),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const invalid = validatePaymentMethodForm({ paypalEmail });
    if (invalid) return setError(t(invalid));
    setError(null);
    save.mutate(paypalEmail.trim());
  };

  return (
    <Dialog open onClose={onClose} title={t('paymentMethod.title')}>
      <form className="form" onSubmit={submit} noValidate>
        <p>{t('paymentMethod.description')}</p>
        <TextField
          id="paypal-email"
          type="email"
          autoComplete="email"
          label={t('paymentMethod.paypalEmail')}
          value={paypalEmail}
          onChange={(e) => setPaypalEmail(e.target.value)}
        />
        <FormMessage error={error} />
        <div className="form__actions">
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn btn--primary" disabled={save.isPending}>
            {t('paymentMethod.save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
