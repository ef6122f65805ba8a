import { ROLES, ROLES_NEEDING_APPROVAL, type Role } from '@omc/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { adminApi, adminUsersQuery } from '../../api/admin';
import { errorText } from '../../api/http';
import { queryKeys } from '../../api/keys';
import { FormMessage } from '../../components/FormMessage';
import { PageHeader } from '../../components/PageHeader';
import { PasswordInput } from '../../components/PasswordInput';
import { useSession } from '../../session/SessionProvider';
import { useTimedClose } from '../profile/useTimedClose';
import { PendingApprovals } from './PendingApprovals';

const ROLE_CHOICES: Role[] = ['admin', 'superuser', 'standard'];

export function RoleManagerPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { token, username } = useSession();
  const queryClient = useQueryClient();
  const users = useQuery(adminUsersQuery(token));
  const selectId = useId();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [success, setSuccess] = useState<string | null>(null);
  const [currentPassword, setCurrentPassword] = useState('');
  const later = useTimedClose();

  const selectable = (users.data?.users ?? []).filter((u) => u.email);
  const selected = selectable.find((u) => u.email === email);
  // The choice defaults to the selected user's current role.
  const chosenRole = role ?? selected?.role ?? null;
  // Superuser and admin need a second admin's approval and this admin's password.
  const needsApproval =
    chosenRole !== null && chosenRole !== selected?.role && ROLES_NEEDING_APPROVAL.includes(chosenRole);

  const save = useMutation({
    mutationFn: (body: { email: string; role: Role; currentPassword?: string }) =>
      adminApi.updateRole(token!, body),
    onSuccess: (answer) => {
      setCurrentPassword('');
      if (answer.approval?.status === 'pending') {
        // Nothing changed yet: the request waits in the list below for another admin.
        setSuccess(t('roleManager.pending'));
        void queryClient.invalidateQueries({ queryKey: queryKeys.approvals });
        return;
      }
      setSuccess(t('roleManager.success'));
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminUsers });
      later(() => navigate('/profile'));
    },
    onError: (failure) => setError(errorText(failure, t('roleManager.errorGeneric'))),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSuccess(null);
    if (!selected || !chosenRole) return setError(t('roleManager.selectBoth'));
    setError(null);
    const password = needsApproval && currentPassword ? { currentPassword } : {};
    save.mutate({ email: selected.email!, role: chosenRole, ...password });
  };

  return (
    <div className="page page--roles">
      <PageHeader />
      <main className="panel">
        <h1 className="panel__title">{t('roleManager.title')}</h1>
        {users.isError ? <FormMessage error={errorText(users.error, t('roleManager.loadError'))} /> : null}
        <form className="form" onSubmit={submit} noValidate>
          <div className="field">
            <label htmlFor={selectId}>{t('roleManager.user')}</label>
            <select
              id={selectId}
              value={email}
              onChange={(e) => {
                setEmail(e.target.value);
                setRole(null);
                setSuccess(null);
              }}
            >
              <option value="">{t('roleManager.chooseUser')}</option>
              {selectable.map((user) => (
                <option key={user.email} value={user.email!}>
                  {t('roleManager.userOption', {
                    username: user.username,
                    email: user.email,
                    role: t(`roles.${user.role}`),
                  })}
                </option>
              ))}
            </select>
          </div>
          <fieldset className="choices">
            <legend>{t('roleManager.role')}</legend>
            {ROLE_CHOICES.filter((r) => ROLES.includes(r)).map((r) => (
              <label key={r} className="choice">
                <input
                  type="radio"
                  name="role"
                  value={r}
                  checked={chosenRole === r}
                  disabled={!selected}
                  onChange={() => setRole(r)}
                />
                <span>{t(`roles.${r}`)}</span>
              </label>
            ))}
          </fieldset>
          {needsApproval ? (
            <PasswordInput
              id="role-current-password"
              label={t('roleManager.password')}
              value={currentPassword}
              onChange={(e) => setCurrentPassword(e.target.value)}
            />
          ) : null}
          <FormMessage error={error} success={success} />
          <div className="form__actions">
            <button type="button" className="btn btn--ghost" onClick={() => navigate('/profile')}>
              {t('common.cancel')}
            </button>
            <button type="submit" className="btn btn--primary" disabled={save.isPending || success !== null}>
              {t('common.save')}
            </button>
          </div>
        </form>
        <PendingApprovals myUsername={username} />
      </main>
    </div>
  );
}
