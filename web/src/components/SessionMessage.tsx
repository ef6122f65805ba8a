import { useTranslation } from 'react-i18next';
import { useSession } from '../session/SessionProvider';

/** The session's latest message (signed in, registered, signed out, expired). */
export function SessionMessage() {
  const { t } = useTranslation();
  const { message, clearMessage } = useSession();
  if (!message) return null;
  return (
    <div className="session-message" role="status">
      <span>{t(message)}</span>
      <button
        type="button"
        className="session-message__close"
        aria-label={t('common.close')}
        onClick={clearMessage}
      >
        <span aria-hidden="true">×</span>
      </button>
    </div>
  );
}
