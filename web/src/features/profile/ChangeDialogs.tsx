// The three change dialogs of the profile: each validates with the contracts' rules, shows the server's
// message or its translated fallback, and closes 1 s after success.
import {
  validateChangeEmailForm,
  validateChangePasswordForm,
  validateChangeUsernameForm,
} from '@omc/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { authApi } from '../../api/auth';
import { errorText } from '../../api/http';
import { queryKeys } from '../../api/keys';
import { Dialog } from '../../components/Dialog';
import { FormMessage } from '../../components/FormMessage';
import { PasswordInput } from '../../components/PasswordInput';
import { TextField } from '../../components/TextField';
import { useSession } from '../../session/SessionProvider';
import { useTimedClose } from './useTimedClose';

interface ChangeDialogProps {
  open: boolean;
  onClose: () => void;
}

function useChange<T>(
  prefix: string,
  call: (token: string, value: T) => Promise<unknown>,
  onClose: () => void,
  successText?: (value: T) => string,
) {
  const { t } = useTranslation();
  const { token, replaceToken } = useSession();
  const queryClient = useQueryClient();
  const closeLater = useTimedClose();
  const [error, setError] = useState<string | null>(null);
  const [success, setSuccess] = useState<string | null>(null);
  const mutation = useMutation({
    mutationFn: (value: T) => call(token!, value),
    onSuccess: (answer, value) => {
      // A password change ends every earlier token: carry on with the one the answer brings.
      const next = (answer as { token?: unknown } | undefined)?.token;
      if (typeof next === 'string') replaceToken(next);
      setSuccess(successText ? successText(value) : t(`${prefix}.success`));
      void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
      closeLater(onClose);
    },
    onError: (failure) => setError(errorText(failure, t(`${prefix}.errorMessageGeneric`))),
  });
  const submit = (invalidKey: string | null, value: T) => {
    setSuccess(null);
    if (invalidKey) return setError(t(invalidKey));
    setError(null);
    mutation.mutate(value);
  };
  return { error, success, submit, pending: mutation.isPending };
}

function ChangeForm({
  title,
  onClose,
  onSubmit,
  error,
  success,
  pending,
  children,
}: {
  title: string;
  onClose: () => void;
  onSubmit: () => void;
  error: string | null;
  success: string | null;
  pending: boolean;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Dialog open onClose={onClose} title={title}>
      <form
        className="form"
        noValidate
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          onSubmit();
        }}
      >
        {children}
        <FormMessage error={error} success={success} />
        <div className="form__actions">
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn btn--primary" disabled={pending || success !== null}>
            {t('common.save')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function ChangeEmailDialog({ open, onClose }: ChangeDialogProps) {
  return open ? <ChangeEmail onClose={onClose} /> : null;
}

function ChangeEmail({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const [currentPassword, setCurrentPassword] = useState('');
  // The email changes once the new address confirms from the link mailed to it: say where to look.
  const change = useChange('changeEmail', authApi.changeEmail, onClose, (value) =>
    t('changeEmail.pending', { email: value.email }),
  );
  return (
    <ChangeForm
      title={t('changeEmail.title')}
      onClose={onClose}
      onSubmit={() =>
        change.submit(validateChangeEmailForm({ email }), {
          email: email.trim(),
          ...(currentPassword ? { currentPassword } : {}),
        })
      }
      {...change}
    >
      <TextField
        id="change-email"
        type="email"
        autoComplete="email"
        label={t('changeEmail.newEmail')}
        value={email}
        onChange={(e) => setEmail(e.target.value)}
      />
      <PasswordInput
        id="change-email-current-password"
        label={t('changeEmail.currentPassword')}
        value={currentPassword}
        onChange={(e) => setCurrentPassword(e.target.value)}
      />
    </ChangeForm>
  );
}

export function ChangePasswordDialog({ open, onClose }: ChangeDialogProps) {
  return open ? <ChangePassword onClose={onClose} /> : null;
}

function ChangePassword({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const [form, setForm] = useState({ currentPassword: '', newPassword: '', confirmPassword: '' });
  const change = useChange('changePassword', authApi.changePassword, onClose);
  const set = (name: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [name]: e.target.value }));
  return (
    <ChangeForm
      title={t('changePassword.title')}
      onClose={onClose}
      onSubmit={() =>
        change.submit(validateChangePasswordForm(form), {
          currentPassword: form.currentPassword,
          newPassword: form.newPassword,
        })
      }
      {...change}
    >
      <PasswordInput
        id="current-password"
        label={t('changePassword.currentPassword')}
        value={form.currentPassword}
        onChange={set('currentPassword')}
      />
      <PasswordInput
        id="new-password"
        autoComplete="new-password"
        label={t('changePassword.newPassword')}
        value={form.newPassword}
        onChange={set('newPassword')}
      />
      <PasswordInput
        id="confirm-new-password"
        autoComplete="new-password"
        label={t('changePassword.confirmPassword')}
        value={form.confirmPassword}
        onChange={set('confirmPassword')}
      />
    </ChangeForm>
  );
}

export function ChangeUsernameDialog({ open, onClose }: ChangeDialogProps) {
  return open ? <ChangeUsername onClose={onClose} /> : null;
}

function ChangeUsername({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const [username, setUsername] = useState('');
  const change = useChange('changeUsername', authApi.changeUsername, onClose);
  return (
    <ChangeForm
      title={t('changeUsername.title')}
      onClose={onClose}
      onSubmit={() => change.submit(validateChangeUsernameForm({ username }), username.trim())}
      {...change}
    >
      <TextField
        id="change-username"
        autoComplete="username"
        label={t('changeUsername.newUsername')}
        value={username}
        onChange={(e) => setUsername(e.target.value)}
      />
      <p className="form__hint">{t('changeUsername.usernameRequirements')}</p>
    </ChangeForm>
  );
}
