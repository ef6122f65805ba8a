// The page the payout email's mail links to (/confirm-payout-email?token=..., mailed to the account's
// email): it confirms the new PayPal email once, on opening, like the other mailed links. No session is
// needed: the mail may be read on another device.
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { paymentsApi } from '../../api/payments';
import { FormMessage } from '../../components/FormMessage';
import { useSession } from '../../session/SessionProvider';
import { MailedLinkPage, useLinkError, useLinkOnOpen } from '../auth/MailedLinkPage';

export function ConfirmPayoutEmailPage() {
  const { t } = useTranslation();
  const session = useSession();
  const { token, outcome } = useLinkOnOpen('confirm-payout-email', (link) =>
    paymentsApi.confirmPayoutEmail(link),
  );
  const error = useLinkError('confirmPayoutEmail', token, outcome.error);
  return (
    <MailedLinkPage title={t('confirmPayoutEmail.title')}>
      {outcome.isPending && token ? <p role="status">{t('confirmPayoutEmail.confirming')}</p> : null}
      <FormMessage error={error} success={outcome.isSuccess ? t('confirmPayoutEmail.success') : null} />
      <div className="form__actions">
        <Link className="btn btn--primary" to={session.token ? '/game' : '/'}>
          {session.token ? t('confirmPayoutEmail.toGame') : t('resetPassword.home')}
        </Link>
      </div>
    </MailedLinkPage>
  );
}
