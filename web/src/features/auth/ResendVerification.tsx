// The "send the link again" button wherever a player is told to verify their email (the banner, the
// payout dialogs), with its outcome in a status region a screen reader announces.
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { authApi } from '../../api/auth';
import { ApiClientError, errorCode } from '../../api/http';
import { useSession } from '../../session/SessionProvider';

export function ResendVerification({ noteClassName }: { noteClassName: string }) {
  const { t } = useTranslation();
  const { token } = useSession();
  const [note, setNote] = useState<string | null>(null);
  const resend = useMutation({
    mutationFn: () => authApi.resendVerification(token!),
    onSuccess: () => setNote(t('verifyBanner.sent')),
    onError: (failure) =>
      setNote(
        failure instanceof ApiClientError && failure.code === errorCode('RATE_LIMITED')
          ? t('verifyBanner.tooMany')
          : t('verifyBanner.error'),
      ),
  });
  return (
    <>
      <button
        type="button"
        className="btn btn--secondary"
        disabled={resend.isPending}
        onClick={() => resend.mutate()}
      >
        {t('verifyBanner.resend')}
      </button>
      <p role="status" className={noteClassName}>
        {note}
      </p>
    </>
  );
}
