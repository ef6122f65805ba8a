// Shown to a signed-in player until their email is verified, with a way to have the link sent again.
import { useTranslation } from 'react-i18next';
import { useSession } from '../../session/SessionProvider';
import { useProfile } from '../game/useProfile';
import { ResendVerification } from './ResendVerification';

export function VerifyEmailBanner() {
  const { t } = useTranslation();
  const { token } = useSession();
  const profile = useProfile();
  if (!token || profile.data?.emailVerified !== false) return null;
  return (
    <aside className="verify-banner" aria-labelledby="verify-banner-text">
      <p id="verify-banner-text" className="verify-banner__text">
        {t('verifyBanner.text', { email: profile.data.email ?? '' })}
      </p>
      <ResendVerification noteClassName="verify-banner__note" />
    </aside>
  );
}
