// Collecting winnings or the house pot needs a verified email (payments refuses with EMAIL_NOT_VERIFIED,
// moving nothing): the payout dialog says so, names the address, and can send the link again.
import { EMAIL_NOT_VERIFIED } from '@omc/contracts';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { authApi } from '../../api/auth';
import { ApiError } from '../../api/http';
import { useSession } from '../../session/SessionProvider';

/** The id of the notice's text, for the confirm button's description. */
export const VERIFY_FIRST_TEXT_ID = 'verify-first-text';

export function isEmailNotVerified(error: unknown): boolean {
  return error instanceof ApiError && error.code === EMAIL_NOT_VERIFIED;
}

export function VerifyFirst({ email }: { email: string }) {
  const { t } = useTranslation();
  const { token } = useSession();
  const [note, setNote] = useState<string | null>(null);
  const resend = useMutation({
    mutationFn: () => authApi.resendVerification(token!),
    onSuccess: () => setNote(t('verifyBanner.sent')),
    onError: (failure) =>
      setNote(
        failure instanceof ApiError && failure.status === 429
          ? t('verifyBanner.tooMany')
          : t('verifyBanner.error'),
      ),
  });
  return (
    <div className="verify-first">
      <p id={VERIFY_FIRST_TEXT_ID} className="verify-first__text">
        {t('winnings.verifyFirst', { email })}
      </p>
      <button
        type="button"
        className="btn btn--secondary"
        disabled={resend.isPending}
        onClick={() => resend.mutate()}
      >
        {t('verifyBanner.resend')}
      </button>
      <p role="status" className="verify-first__note">
        {note}
      </p>
    </div>
  );
}
