import { validateLoginForm } from '@omc/contracts';
import { useMutation } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { authApi } from '../../api/auth';
import { ApiClientError } from '../../api/http';
import { Dialog } from '../../components/Dialog';
import { FormMessage } from '../../components/FormMessage';
import { PasswordInput } from '../../components/PasswordInput';
import { TextField } from '../../components/TextField';
import { useSession } from '../../session/SessionProvider';
import { ForgotPasswordDialog } from './ForgotPasswordDialog';

export const LOGIN_FOCUS_DELAY_MS = 50;

/**
 * The client contract: no answer is the generic error, a non-JSON answer is "error logging in", a refusal
 * shows the server's message or "invalid credentials".
 */
export function loginErrorKey(error: unknown): { text?: string; key: string } {
  if (!(error instanceof ApiClientError)) return { key: 'login.errorGeneric' };
  if (error.status === 0) return { key: 'common.errorGeneric' };
  if (!error.json) return { key: 'login.errorGeneric' };
  if (error.serverMessage) return { text: error.serverMessage, key: '' };
  return { key: error.status >= 400 ? 'login.invalidCredentials' : 'login.errorGeneric' };
}

export function LoginDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { signIn } = useSession();
  const [form, setForm] = useState({ emailOrUsername: '', password: '' });
  const [error, setError] = useState<string | null>(null);
  const firstField = useRef<HTMLInputElement>(null);
  const [forgot, setForgot] = useState(false);

  const close = () => {
    setForm({ emailOrUsername: '', password: '' });
    setError(null);
    setForgot(false);
    onClose();
  };

  const login = useMutation({
    mutationFn: authApi.login,
    onSuccess: (response) => {
      signIn(response.token, 'login', response.preferredLanguage);
      close();
      navigate('/game');
    },
    onError: (failure) => {
      const { text, key } = loginErrorKey(failure);
      setError(text ?? t(key));
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const invalid = validateLoginForm(form);
    if (invalid) return setError(t(invalid));
    setError(null);
    login.mutate({ emailOrUsername: form.emailOrUsername.trim(), password: form.password });
  };

  if (open && forgot) return <ForgotPasswordDialog open onClose={close} onBack={() => setForgot(false)} />;

  return (
    <Dialog
      open={open}
      onClose={close}
      title={t('login.title')}
      initialFocus={firstField}
      initialFocusDelayMs={LOGIN_FOCUS_DELAY_MS}
    >
      <form className="form" onSubmit={submit} noValidate>
        <TextField
          ref={firstField}
          id="login-emailOrUsername"
          label={t('login.emailOrUsername')}
          autoComplete="username"
          value={form.emailOrUsername}
          onChange={(e) => setForm({ ...form, emailOrUsername: e.target.value })}
        />
        <PasswordInput
          id="login-password"
          label={t('login.password')}
          value={form.password}
          onChange={(e) => setForm({ ...form, password: e.target.value })}
        />
        <button type="button" className="btn btn--link" onClick={() => setForgot(true)}>
          {t('login.forgotPassword')}
        </button>
        <FormMessage error={error} />
        <div className="form__actions">
          <button type="button" className="btn btn--ghost" onClick={close}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn btn--primary" disabled={login.isPending}>
            {login.isPending ? t('common.loading') : t('login.submit')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
