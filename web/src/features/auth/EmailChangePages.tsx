// The pages the email-change mails link to. /confirm-email?token=... (mailed to the new address) confirms
// the change once, on opening, like the verification link. /undo-email-change?token=... (mailed to the old
// address) asks first, since undoing signs every session out; then it restores the old address.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { authApi } from '../../api/auth';
import { ApiError } from '../../api/http';
import { queryKeys } from '../../api/keys';
import { FormMessage } from '../../components/FormMessage';
import { LanguageSwitcher } from '../../components/LanguageSwitcher';
import { useSession } from '../../session/SessionProvider';

/** The translated reason a link was refused. */
function failureKey(prefix: 'confirmEmail' | 'undoEmailChange', failure: unknown): string {
  if (!(failure instanceof ApiError)) return `${prefix}.errorGeneric`;
  if (failure.status === 403) return `${prefix}.otherAccount`;
  if (failure.status === 409) return `${prefix}.taken`;
  if (failure.field === 'token') return `${prefix}.invalid`;
  return `${prefix}.errorGeneric`;
}

function LinkPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="page page--verify">
      <header className="welcome__bar">
        <LanguageSwitcher />
      </header>
      <main className="panel">
        <h1 className="panel__title">{title}</h1>
        {children}
      </main>
    </div>
  );
}

export function ConfirmEmailPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';
  const session = useSession();
  const queryClient = useQueryClient();
  // A query, not an effect: one call per link however often the page renders.
  const confirmation = useQuery({
    queryKey: ['confirm-email', token],
    queryFn: () => authApi.confirmEmail(token, session.token),
    enabled: Boolean(token),
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
  });
  useEffect(() => {
    if (confirmation.isSuccess) void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
  }, [confirmation.isSuccess, queryClient]);

  const error = !token
    ? t('confirmEmail.invalid')
    : confirmation.error
      ? t(failureKey('confirmEmail', confirmation.error))
      : null;
  return (
    <LinkPage title={t('confirmEmail.title')}>
      {confirmation.isPending && token ? <p role="status">{t('confirmEmail.confirming')}</p> : null}
      <FormMessage error={error} success={confirmation.isSuccess ? t('confirmEmail.success') : null} />
      <div className="form__actions">
        <Link className="btn btn--primary" to={session.token ? '/profile' : '/'}>
          {session.token ? t('confirmEmail.toProfile') : t('resetPassword.home')}
        </Link>
      </div>
    </LinkPage>
  );
}

export function UndoEmailChangePage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';
  const session = useSession();
  const undo = useMutation({ mutationFn: () => authApi.undoEmailChange(token, session.token) });

  const error = !token
    ? t('undoEmailChange.invalid')
    : undo.error
      ? t(failureKey('undoEmailChange', undo.error))
      : null;
  return (
    <LinkPage title={t('undoEmailChange.title')}>
      {undo.isSuccess ? null : <p>{t('undoEmailChange.intro')}</p>}
      {undo.isPending ? <p role="status">{t('undoEmailChange.undoing')}</p> : null}
      <FormMessage error={error} success={undo.isSuccess ? t('undoEmailChange.success') : null} />
      <div className="form__actions">
        {undo.isSuccess ? null : (
          <button
            type="button"
            className="btn btn--danger"
            disabled={!token || undo.isPending}
            onClick={() => undo.mutate()}
          >
            {t('undoEmailChange.submit')}
          </button>
        )}
        <Link className="btn btn--ghost" to="/">
          {t('resetPassword.home')}
        </Link>
      </div>
    </LinkPage>
  );
}
