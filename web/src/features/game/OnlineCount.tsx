import { useTranslation } from 'react-i18next';
import { formatCount } from '../../i18n/format';
import type { LiveGame } from './live';

/** Whether the live updates are on, and how many people are playing. */
export function OnlineCount({ live }: { live: LiveGame }) {
  const { t, i18n } = useTranslation();
  return (
    <div className="online" aria-live="off">
      <span className={`online__dot${live.connected ? ' online__dot--on' : ''}`} aria-hidden="true" />
      <span>
        {live.userCount === null
          ? t(live.connected ? 'game.connected' : 'game.connecting')
          : t('game.usersOnline', { formatted: formatCount(live.userCount, i18n.language) })}
      </span>
    </div>
  );
}
