import { LANGUAGES, validateRegisterForm } from '@omc/contracts';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { authApi } from '../../api/auth';
import { errorText } from '../../api/http';
import { Dialog } from '../../components/Dialog';
import { FormMessage } from '../../components/FormMessage';
import { PasswordInput } from '../../components/PasswordInput';
import { TextField } from '../../components/TextField';
import { useSession } from '../../session/SessionProvider';

const EMPTY = { username: '', email: '', password: '', confirmPassword: '' };

export function RegisterDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const { signIn } = useSession();
  const [form, setForm] = useState(EMPTY);
  const [error, setError] = useState<string | null>(null);

  const close = () => {
    setForm(EMPTY);
    setError(null);
    onClose();
  };

  const register = useMutation({
    mutationFn: authApi.register,
    onSuccess: (response) => {
      signIn(response.token, 'register');
      close();
      navigate('/game');
    },
    onError: (failure) => setError(errorText(failure, t('register.errorGeneric'))),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // Only the first failing rule is shown, in the order of the client contract.
    const invalid = validateRegisterForm(form);
    if (invalid) return setError(t(invalid));
    setError(null);
    register.mutate({
      username: form.username.trim(),
      email: form.email.trim(),
      password: form.password,
      // Mails (the verification link first) are written in the language the player signs up in.
      preferredLanguage: LANGUAGES.find((l) => l === i18n.language),
    });
  };

  const field = (name: keyof typeof EMPTY) => ({
    value: form[name],
    onChange: (e: { target: { value: string } }) => setForm((f) => ({ ...f, [name]: e.target.value })),
  });

  return (
    <Dialog open={open} onClose={close} title={t('register.title')}>
      <form className="form" onSubmit={submit} noValidate>
        <TextField
          id="register-username"
          label={t('register.username')}
          autoComplete="username"
          {...field('username')}
        />
        <TextField
          id="register-email"
          type="email"
          label={t('register.email')}
          autoComplete="email"
          {...field('email')}
        />
        <PasswordInput
          id="register-password"
          label={t('register.password')}
          autoComplete="new-password"
          {...field('password')}
        />
        <PasswordInput
          id="register-confirmPassword"
          label={t('register.confirmPassword')}
          autoComplete="new-password"
          {...field('confirmPassword')}
        />
        <p className="form__hint">{t('register.passwordHint')}</p>
        <FormMessage error={error} />
        <div className="form__actions">
          <button type="button" className="btn btn--ghost" onClick={close}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn btn--primary" disabled={register.isPending}>
            {register.isPending ? t('common.loading') : t('register.submit')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
