import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { gameRulesQuery, gameStateQuery } from '../../api/game';
import { FormMessage } from '../../components/FormMessage';
import { SessionMessage } from '../../components/SessionMessage';
import { VerifyEmailBanner } from '../auth/VerifyEmailBanner';
import { formatCount } from '../../i18n/format';
import { useSession } from '../../session/SessionProvider';
import { PendingWinnings } from '../winnings/PendingWinnings';
import { canClick, hasUnlimitedClicks } from './clickRules';
import { ClickButton } from './ClickButton';
import { GameHeader } from './GameHeader';
import { GameStats } from './GameStats';
import { useLiveGame } from './live';
import { MilestoneBar } from './MilestoneBar';
import { ProgressRing } from './ProgressRing';
import { useClick } from './useClick';
import { useProfile } from './useProfile';

// The purchase dialog and its payment forms load when a player opens it, not with the first screen.
const BuyClicksDialog = lazy(() =>
  import('../buy/BuyClicksDialog').then((m) => ({ default: m.BuyClicksDialog })),
);

export function GamePage() {
  const { t, i18n } = useTranslation();
  const { token, isGuest, role } = useSession();
  const state = useQuery(gameStateQuery(token));
  const rules = useQuery(gameRulesQuery());
  const profile = useProfile();
  const live = useLiveGame();
  const click = useClick();
  const [buying, setBuying] = useState(false);

  const globalClicks = state.data?.globalClicks ?? 0;
  const target = rules.data?.roundTarget ?? 1_000_000;
  const balance = {
    role,
    freeClicks: profile.data?.freeClicks,
    hasInfiniteClicks: profile.data?.hasInfiniteClicks,
  };
  const unlimited = hasUnlimitedClicks(balance);
  const signedIn = Boolean(token) && !isGuest;

  return (
    <div className="page page--game">
      <GameHeader pot={state.data?.pot} />
      <SessionMessage />
      <main className="game">
        {state.isError ? <FormMessage error={t('game.errors.gameStateError')} /> : null}
        <section className="counter" aria-label={t('game.counterLabel')}>
          <div className="counter__value num" data-testid="global-clicks" aria-live="off">
            {formatCount(globalClicks, i18n.language)}
          </div>
          <div className="counter__target">
            {t('game.ofTarget', { target: formatCount(target, i18n.language) })}
          </div>
        </section>

        <ProgressRing value={globalClicks} target={target}>
          <ClickButton
            disabled={!canClick(token, balance) || click.busy === 'retrying'}
            onClick={() => click.mutate()}
          />
        </ProgressRing>
        <p className="click-busy" role="status" data-testid="click-busy">
          {click.busy === 'retrying'
            ? t('game.busy.retrying')
            : click.busy === 'gaveUp'
              ? t('game.busy.gaveUp')
              : null}
        </p>
        {!token ? <p className="hint">{t('game.guestHint')}</p> : null}

        {/* Until the rules arrive, an empty bar of the same height holds the place (no layout shift). */}
        {rules.data ? (
          <MilestoneBar rules={rules.data} globalClicks={globalClicks} />
        ) : (
          <div className="milestone milestone--pending" aria-hidden="true" />
        )}

        <GameStats
          signedIn={signedIn}
          state={state.data}
          freeClicks={profile.data?.freeClicks}
          unlimited={unlimited}
        />

        {signedIn && profile.data ? <PendingWinnings profile={profile.data} /> : null}
      </main>
      {/* Below the game, not above it: it appears once the profile is read and must not push the page down. */}
      <VerifyEmailBanner />
      <footer className="game-footer">
        <div className="online" aria-live="off">
          <span className={`online__dot${live.connected ? ' online__dot--on' : ''}`} aria-hidden="true" />
          <span>
            {live.userCount === null
              ? t(live.connected ? 'game.connected' : 'game.connecting')
              : t('game.usersOnline', { formatted: formatCount(live.userCount, i18n.language) })}
          </span>
        </div>
        {token ? (
          <button
            type="button"
            className="btn btn--primary"
            disabled={unlimited}
            onClick={() => setBuying(true)}
          >
            {t('game.buyClicks')}
          </button>
        ) : null}
      </footer>
      {buying ? (
        <Suspense fallback={null}>
          <BuyClicksDialog open onClose={() => setBuying(false)} />
        </Suspense>
      ) : null}
    </div>
  );
}
