// "Forgot password?": asks for the account's email and says the same thing whatever the server knows,
// since the server answers the same for every address.
import { EmailField } from '@omc/contracts';
import { useMutation } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { authApi } from '../../api/auth';
import { ApiClientError, errorCode } from '../../api/http';
import { Dialog } from '../../components/Dialog';
import { FormMessage } from '../../components/FormMessage';
import { TextField } from '../../components/TextField';

export function ForgotPasswordDialog({
  open,
  onClose,
  onBack,
}: {
  open: boolean;
  onClose: () => void;
  /** Back to the login dialog. */
  onBack: () => void;
}) {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState(false);
  const field = useRef<HTMLInputElement>(null);

  const ask = useMutation({
    mutationFn: authApi.forgotPassword,
    onSuccess: () => setSent(true),
    onError: (failure) =>
      setError(
        failure instanceof ApiClientError && failure.code === errorCode('RATE_LIMITED')
          ? t('forgotPassword.tooMany')
          : t('forgotPassword.errorGeneric'),
      ),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSent(false);
    if (!EmailField.safeParse(email.trim()).success) return setError(t('forgotPassword.validEmailError'));
    setError(null);
    ask.mutate(email.trim());
  };

  return (
    <Dialog open={open} onClose={onClose} title={t('forgotPassword.title')} initialFocus={field}>
      <form className="form" onSubmit={submit} noValidate>
        <p id="forgot-intro">{t('forgotPassword.intro')}</p>
        <TextField
          ref={field}
          id="forgot-email"
          type="email"
          label={t('forgotPassword.email')}
          autoComplete="email"
          aria-describedby="forgot-intro"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <FormMessage error={error} success={sent ? t('forgotPassword.sent') : null} />
        <div className="form__actions">
          <button type="button" className="btn btn--ghost" onClick={onBack}>
            {t('forgotPassword.back')}
          </button>
          <button type="submit" className="btn btn--primary" disabled={ask.isPending}>
            {ask.isPending ? t('common.loading') : t('forgotPassword.submit')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
