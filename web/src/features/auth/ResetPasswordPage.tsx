// /reset-password?token=...: the page the reset mail links to. Chooses the new password; on success
// every session has ended, so it offers to log in.
import { PASSWORD_MAX, PASSWORD_MIN } from '@omc/contracts';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { authApi } from '../../api/auth';
import { ApiClientError } from '../../api/http';
import { FormMessage } from '../../components/FormMessage';
import { LanguageSwitcher } from '../../components/LanguageSwitcher';
import { PasswordInput } from '../../components/PasswordInput';
import { LoginDialog } from './LoginDialog';

function validate(form: { newPassword: string; confirmPassword: string }): string | null {
  if (!form.newPassword || !form.confirmPassword) return 'changePassword.allRequired';
  if (form.newPassword !== form.confirmPassword) return 'changePassword.passwordsDontMatch';
  if (form.newPassword.length < PASSWORD_MIN) return 'changePassword.passwordMinLength';
  if (form.newPassword.length > PASSWORD_MAX) return 'changePassword.passwordTooLong';
  return null;
}

export function ResetPasswordPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';
  const [form, setForm] = useState({ newPassword: '', confirmPassword: '' });
  const [error, setError] = useState<string | null>(token ? null : t('resetPassword.missingToken'));
  const [done, setDone] = useState(false);
  const [login, setLogin] = useState(false);

  const reset = useMutation({
    mutationFn: authApi.resetPassword,
    onSuccess: () => {
      setDone(true);
      setForm({ newPassword: '', confirmPassword: '' });
    },
    onError: (failure) =>
      setError(
        failure instanceof ApiClientError && failure.field === 'token'
          ? t('resetPassword.linkInvalid')
          : failure instanceof ApiClientError && failure.serverMessage
            ? failure.serverMessage
            : t('resetPassword.errorGeneric'),
      ),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!token) return setError(t('resetPassword.missingToken'));
    const invalid = validate(form);
    if (invalid) return setError(t(invalid));
    setError(null);
    reset.mutate({ token, newPassword: form.newPassword });
  };

  return (
    <div className="page page--reset">
      <header className="welcome__bar">
        <LanguageSwitcher />
      </header>
      <main className="panel">
        <h1 className="panel__title">{t('resetPassword.title')}</h1>
        {done ? (
          <>
            <FormMessage success={t('resetPassword.success')} />
            <div className="form__actions">
              <button type="button" className="btn btn--primary" onClick={() => setLogin(true)}>
                {t('resetPassword.login')}
              </button>
            </div>
          </>
        ) : (
          <form className="form" onSubmit={submit} noValidate>
            <PasswordInput
              id="reset-newPassword"
              label={t('resetPassword.newPassword')}
              autoComplete="new-password"
              value={form.newPassword}
              onChange={(e) => setForm({ ...form, newPassword: e.target.value })}
            />
            <PasswordInput
              id="reset-confirmPassword"
              label={t('resetPassword.confirmPassword')}
              autoComplete="new-password"
              value={form.confirmPassword}
              onChange={(e) => setForm({ ...form, confirmPassword: e.target.value })}
            />
            <FormMessage error={error} />
            <div className="form__actions">
              <Link className="btn btn--ghost" to="/">
                {t('resetPassword.home')}
              </Link>
              <button type="submit" className="btn btn--primary" disabled={reset.isPending || !token}>
                {reset.isPending ? t('common.loading') : t('resetPassword.submit')}
              </button>
            </div>
          </form>
        )}
      </main>
      <LoginDialog open={login} onClose={() => setLogin(false)} />
    </div>
  );
}
