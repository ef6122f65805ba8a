// The PayPal email winnings (and the admin pot) are paid to. A new address waits until it is confirmed
// from the link mailed to the account's email, so the dialog ends with "check your email"; the server asks
// for the current password when the sign-in is older than a few minutes, and the field appears then.
import { validatePaymentMethodForm } from '@omc/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiClientError, errorText } from '../../api/http';
import { queryKeys } from '../../api/keys';
import { paymentsApi } from '../../api/payments';
import { Dialog } from '../../components/Dialog';
import { FormMessage } from '../../components/FormMessage';
import { PasswordInput } from '../../components/PasswordInput';
import { TextField } from '../../components/TextField';
import { useSession } from '../../session/SessionProvider';

export function PaymentMethodDialog({
  open,
  onClose,
  currentEmail,
}: {
  open: boolean;
  onClose: () => void;
  currentEmail: string | null;
}) {
  return open ? <PaymentMethodForm onClose={onClose} currentEmail={currentEmail} /> : null;
}

function PaymentMethodForm({ onClose, currentEmail }: { onClose: () => void; currentEmail: string | null }) {
  const { t } = useTranslation();
  const { token } = useSession();
  const queryClient = useQueryClient();
  const [paypalEmail, setPaypalEmail] = useState(currentEmail ?? '');
  const [currentPassword, setCurrentPassword] = useState('');
  const [askPassword, setAskPassword] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const save = useMutation({
    mutationFn: (body: { paypalEmail: string; currentPassword?: string }) =>
      paymentsApi.setPaymentMethod(token!, body.paypalEmail, body.currentPassword),
    onSuccess: () => {
      setError(null);
      void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
    },
    onError: (failure) => {
      if (failure instanceof ApiClientError && failure.field === 'currentPassword') {
        // Asked for (no recent sign-in) or wrong: the field is shown, with the server's reason.
        setAskPassword(true);
        return setError(
          currentPassword
            ? errorText(failure, t('paymentMethod.internalError'))
            : t('paymentMethod.passwordNeeded'),
        );
      }
      setError(errorText(failure, t('paymentMethod.internalError')));
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const invalid = validatePaymentMethodForm({ paypalEmail });
    if (invalid) return setError(t(invalid));
    setError(null);
    save.mutate({
      paypalEmail: paypalEmail.trim(),
      ...(currentPassword ? { currentPassword } : {}),
    });
  };

  if (save.isSuccess)
    return (
      <Dialog open onClose={onClose} title={t('paymentMethod.title')}>
        <FormMessage success={t('paymentMethod.checkEmail', { email: save.variables.paypalEmail })} />
        <div className="form__actions">
          <button type="button" className="btn btn--primary" onClick={onClose}>
            {t('paymentMethod.close')}
          </button>
        </div>
      </Dialog>
    );

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
        {askPassword ? (
          <PasswordInput
            id="paypal-current-password"
            label={t('paymentMethod.currentPassword')}
            value={currentPassword}
            onChange={(e) => setCurrentPassword(e.target.value)}
          />
        ) : null}
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
