import { useTranslation } from 'react-i18next';
import { useSession } from '../session/SessionProvider';

/** The session's latest message (signed in, registered, signed out, expired), or why it was suspended. */
export function SessionMessage() {
  const { t } = useTranslation();
  const { message, suspension, clearMessage } = useSession();
  if (suspension !== null) return <SuspendedNotice serverMessage={suspension} onClose={clearMessage} />;
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

/** An operator suspended the account: said plainly, with their reason as the server gave it. */
function SuspendedNotice({ serverMessage, onClose }: { serverMessage: string; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <section
      className="session-message session-message--suspended"
      role="alert"
      aria-labelledby="suspended-title"
    >
      <div>
        <h2 id="suspended-title" className="session-message__title">
          {t('suspension.title')}
        </h2>
        {serverMessage && <p className="session-message__reason">{serverMessage}</p>}
        <p>{t('suspension.signedOut')}</p>
      </div>
      <button
        type="button"
        className="session-message__close"
        aria-label={t('common.close')}
        onClick={onClose}
      >
        <span aria-hidden="true">×</span>
      </button>
    </section>
  );
}
