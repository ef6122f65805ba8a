// Shown to a signed-in player until their email is verified, with a way to have the link sent again.
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { authApi } from '../../api/auth';
import { ApiError } from '../../api/http';
import { useSession } from '../../session/SessionProvider';
import { useProfile } from '../game/useProfile';

export function VerifyEmailBanner() {
  const { t } = useTranslation();
  const { token } = useSession();
  const profile = useProfile();
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
  if (!token || profile.data?.emailVerified !== false) return null;
  return (
    <aside className="verify-banner" aria-labelledby="verify-banner-text">
      <p id="verify-banner-text" className="verify-banner__text">
        {t('verifyBanner.text', { email: profile.data.email ?? '' })}
      </p>
      <button
        type="button"
        className="btn btn--secondary"
        disabled={resend.isPending}
        onClick={() => resend.mutate()}
      >
        {t('verifyBanner.resend')}
      </button>
      <p role="status" className="verify-banner__note">
        {note}
      </p>
    </aside>
  );
}
