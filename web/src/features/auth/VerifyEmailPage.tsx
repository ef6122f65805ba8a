// /verify-email?token=...: the page the verification mail links to. Confirms the address once, and says
// plainly when the link is used, expired or not valid.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { authApi } from '../../api/auth';
import { ApiError } from '../../api/http';
import { queryKeys } from '../../api/keys';
import { FormMessage } from '../../components/FormMessage';
import { LanguageSwitcher } from '../../components/LanguageSwitcher';
import { useSession } from '../../session/SessionProvider';

export function VerifyEmailPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';
  const session = useSession();
  const queryClient = useQueryClient();
  // A query, not an effect: one call per link however often the page renders.
  const verification = useQuery({
    queryKey: ['verify-email', token],
    queryFn: () => authApi.verifyEmail(token, session.token),
    enabled: Boolean(token),
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
  });
  useEffect(() => {
    if (verification.isSuccess) void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
  }, [verification.isSuccess, queryClient]);

  const failure = verification.error;
  const error = !token
    ? t('verifyEmail.invalid')
    : failure
      ? failure instanceof ApiError && failure.status === 403
        ? t('verifyEmail.otherAccount')
        : failure instanceof ApiError && failure.field === 'token'
          ? t('verifyEmail.invalid')
          : t('verifyEmail.errorGeneric')
      : null;

  return (
    <div className="page page--verify">
      <header className="welcome__bar">
        <LanguageSwitcher />
      </header>
      <main className="panel">
        <h1 className="panel__title">{t('verifyEmail.title')}</h1>
        {verification.isPending && token ? <p role="status">{t('verifyEmail.verifying')}</p> : null}
        <FormMessage error={error} success={verification.isSuccess ? t('verifyEmail.success') : null} />
        <div className="form__actions">
          <Link className="btn btn--primary" to={session.token ? '/game' : '/'}>
            {session.token ? t('common.backToGame') : t('resetPassword.home')}
          </Link>
        </div>
      </main>
    </div>
  );
}
