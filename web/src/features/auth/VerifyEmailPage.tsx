// /verify-email?token=...: the page the verification mail links to. Confirms the address once, and says
// plainly when the link is used, expired or not valid.
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { authApi } from '../../api/auth';
import { FormMessage } from '../../components/FormMessage';
import { useSession } from '../../session/SessionProvider';
import { MailedLinkPage, useLinkError, useLinkOnOpen } from './MailedLinkPage';

export function VerifyEmailPage() {
  const { t } = useTranslation();
  const session = useSession();
  const { token, outcome } = useLinkOnOpen('verify-email', authApi.verifyEmail);
  const error = useLinkError('verifyEmail', token, outcome.error);
  return (
    <MailedLinkPage title={t('verifyEmail.title')}>
      {outcome.isPending && token ? <p role="status">{t('verifyEmail.verifying')}</p> : null}
      <FormMessage error={error} success={outcome.isSuccess ? t('verifyEmail.success') : null} />
      <div className="form__actions">
        <Link className="btn btn--primary" to={session.token ? '/game' : '/'}>
          {session.token ? t('common.backToGame') : t('resetPassword.home')}
        </Link>
      </div>
    </MailedLinkPage>
  );
}
