import type { GameState } from '@omc/contracts';
import { useTranslation } from 'react-i18next';
import { formatCount } from '../../i18n/format';

/** A signed-in player's free clicks, and who clicked and won last; nothing for guests. */
export function GameStats({
  signedIn,
  state,
  freeClicks,
  unlimited,
}: {
  signedIn: boolean;
  state: GameState | undefined;
  freeClicks: number | null | undefined;
  /** The same balance's hasUnlimitedClicks: an admin, a pass, or a count at UNLIMITED_CLICKS. */
  unlimited: boolean;
}) {
  const { t, i18n } = useTranslation();
  return (
    <div className="stats">
      {signedIn ? (
        <>
          <div className="stat">
            <span className="stat__label">{t('game.freeClicks')}</span>
            <span className="stat__value num" data-testid="free-clicks">
              {unlimited
                ? t('game.unlimited')
                : freeClicks === undefined || freeClicks === null
                  ? '–'
                  : formatCount(freeClicks, i18n.language)}
            </span>
          </div>
          <div className="stat">
            <span className="stat__label">{t('game.lastClicker')}</span>
            <span className="stat__value" translate="no" data-testid="last-clicker">
              {state?.lastClickUser ?? t('game.nobody')}
            </span>
          </div>
          <div className="stat">
            <span className="stat__label">{t('game.lastWinner')}</span>
            <span className="stat__value" translate="no" data-testid="last-winner">
              {state?.lastWinner ?? t('game.nobody')}
            </span>
          </div>
        </>
      ) : null}
    </div>
  );
}
