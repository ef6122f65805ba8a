// Collecting winnings or the house pot needs a verified email (payments refuses with EMAIL_NOT_VERIFIED,
// moving nothing): the payout dialog says so, names the address, and can send the link again.
import { useTranslation } from 'react-i18next';
import { ApiClientError, errorCode } from '../../api/http';
import { ResendVerification } from '../auth/ResendVerification';

/** The id of the notice's text, for the confirm button's description. */
export const VERIFY_FIRST_TEXT_ID = 'verify-first-text';

export function isEmailNotVerified(error: unknown): boolean {
  return error instanceof ApiClientError && error.code === errorCode('EMAIL_NOT_VERIFIED');
}

export function VerifyFirst({ email }: { email: string }) {
  const { t } = useTranslation();
  return (
    <div className="verify-first">
      <p id={VERIFY_FIRST_TEXT_ID} className="verify-first__text">
        {t('winnings.verifyFirst', { email })}
      </p>
      <ResendVerification noteClassName="verify-first__note" />
    </div>
  );
}
