// The pages the email-change mails link to. /confirm-email?token=... (mailed to the new address) confirms
// the change once, on opening, like the verification link. /undo-email-change?token=... (mailed to the old
// address) asks first, since undoing signs every session out; then it restores the old address.
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { authApi } from '../../api/auth';
import { FormMessage } from '../../components/FormMessage';
import { useSession } from '../../session/SessionProvider';
import { MailedLinkPage, useLinkError, useLinkOnOpen, useLinkToken } from './MailedLinkPage';

export function ConfirmEmailPage() {
  const { t } = useTranslation();
  const session = useSession();
  const { token, outcome: confirmation } = useLinkOnOpen('confirm-email', authApi.confirmEmail);
  const error = useLinkError('confirmEmail', token, confirmation.error);
  return (
    <MailedLinkPage title={t('confirmEmail.title')}>
      {confirmation.isPending && token ? <p role="status">{t('confirmEmail.confirming')}</p> : null}
      <FormMessage error={error} success={confirmation.isSuccess ? t('confirmEmail.success') : null} />
      <div className="form__actions">
        <Link className="btn btn--primary" to={session.token ? '/profile' : '/'}>
          {session.token ? t('confirmEmail.toProfile') : t('resetPassword.home')}
        </Link>
      </div>
    </MailedLinkPage>
  );
}

export function UndoEmailChangePage() {
  const { t } = useTranslation();
  const token = useLinkToken();
  const session = useSession();
  const undo = useMutation({ mutationFn: () => authApi.undoEmailChange(token, session.token) });
  const error = useLinkError('undoEmailChange', token, undo.error);
  return (
    <MailedLinkPage title={t('undoEmailChange.title')}>
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
    </MailedLinkPage>
  );
}
