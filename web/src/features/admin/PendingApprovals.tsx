// The two-admin requests waiting for a decision (docs/auth.md): another admin approves one (with their
// password, unless they signed in a few minutes ago) or refuses it; one's own requests are only shown.
import type { Approval } from '@omc/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { adminApi } from '../../api/admin';
import { errorText } from '../../api/http';
import { queryKeys } from '../../api/keys';
import { FormMessage } from '../../components/FormMessage';
import { PasswordInput } from '../../components/PasswordInput';
import { useSession } from '../../session/SessionProvider';

export function PendingApprovals({ myUsername }: { myUsername: string | null }) {
  const { t, i18n } = useTranslation();
  const { token } = useSession();
  const queryClient = useQueryClient();
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [success, setSuccess] = useState<string | null>(null);
  const pending = useQuery({
    queryKey: queryKeys.approvals,
    queryFn: () => adminApi.approvals(token!),
    enabled: Boolean(token),
  });
  const decide = useMutation({
    mutationFn: ({ id, approve }: { id: string; approve: boolean }) =>
      approve ? adminApi.approve(token!, id, password || undefined) : adminApi.refuse(token!, id),
    onSuccess: (_answer, { approve }) => {
      setError(null);
      setPassword('');
      setSuccess(t(approve ? 'approvals.approved' : 'approvals.refused'));
    },
    onError: (failure) => {
      setSuccess(null);
      setError(errorText(failure, t('approvals.error')));
    },
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.approvals });
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminUsers });
    },
  });

  const describe = (a: Approval) =>
    a.kind === 'housePayout'
      ? t('approvals.houseRequest', { requester: a.requestedBy.username ?? '?' })
      : t('approvals.roleRequest', {
          requester: a.requestedBy.username ?? '?',
          target: a.target?.username ?? '?',
          role: t(`roles.${a.role ?? 'standard'}`),
        });
  const approvals = pending.data?.approvals ?? [];

  return (
    <section className="card approvals" aria-labelledby="approvals-title">
      <h2 id="approvals-title" className="card__title">
        {t('approvals.title')}
      </h2>
      {pending.isError ? <FormMessage error={errorText(pending.error, t('approvals.error'))} /> : null}
      {approvals.length === 0 ? <p>{t('approvals.none')}</p> : null}
      {approvals.length > 0 ? (
        <>
          <PasswordInput
            id="approvals-password"
            label={t('approvals.password')}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          <ul className="approvals__list">
            {approvals.map((a) => {
              const mine = a.requestedBy.username === myUsername;
              return (
                <li key={a.id} className="approvals__item" data-testid="approval">
                  <span>{describe(a)}</span>{' '}
                  <span className="approvals__expires">
                    {t('approvals.expires', {
                      at: new Date(a.expiresAt).toLocaleString(i18n.language),
                    })}
                  </span>
                  {mine ? (
                    <p>{t('approvals.yours')}</p>
                  ) : (
                    <div className="form__actions">
                      <button
                        type="button"
                        className="btn btn--ghost"
                        disabled={decide.isPending}
                        onClick={() => decide.mutate({ id: a.id, approve: false })}
                      >
                        {t('approvals.refuse')}
                      </button>
                      <button
                        type="button"
                        className="btn btn--primary"
                        disabled={decide.isPending}
                        onClick={() => decide.mutate({ id: a.id, approve: true })}
                      >
                        {t('approvals.approve')}
                      </button>
                    </div>
                  )}
                </li>
              );
            })}
          </ul>
        </>
      ) : null}
      {error || success ? <FormMessage error={error} success={success} /> : null}
    </section>
  );
}
