import type { Winner } from '@omc/contracts';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { TrophyIcon } from '../../components/Icons';
import { formatWinnerDate, formatWinnerPot } from './winnerFormat';

export const ROTATION_MS = 5000;
export const FADE_MS = 300;

function randomIndex(length: number, avoid: number): number {
  if (length <= 1) return 0;
  const pick = Math.floor(Math.random() * (length - 1));
  return pick >= avoid ? pick + 1 : pick;
}

/** One random winner at a time, changing every 5 s with a 300 ms fade (docs/client-contract.md). */
export function RandomWinnerCard({ winners }: { winners: Winner[] }) {
  const { t } = useTranslation();
  const [index, setIndex] = useState(() => randomIndex(winners.length, -1));
  const [fading, setFading] = useState(false);

  useEffect(() => {
    let fadeTimer: ReturnType<typeof setTimeout> | undefined;
    const rotation = setInterval(() => {
      setFading(true);
      fadeTimer = setTimeout(() => {
        setIndex((current) => randomIndex(winners.length, current));
        setFading(false);
      }, FADE_MS);
    }, ROTATION_MS);
    return () => {
      clearInterval(rotation);
      if (fadeTimer) clearTimeout(fadeTimer);
    };
  }, [winners.length]);

  const winner = winners[Math.min(index, winners.length - 1)];
  if (!winner) return null;
  return (
    <article
      className={`winner-card${fading ? ' winner-card--fading' : ''}`}
      style={{ transitionDuration: `${FADE_MS}ms` }}
      aria-live="polite"
    >
      <div className="winner-card__trophy">
        <TrophyIcon />
      </div>
      <h2 className="winner-card__name" translate="no">
        {winner.userId?.username ?? t('winners.unknownUser')}
      </h2>
      <p className="winner-card__pot num">{formatWinnerPot(winner.pot)}</p>
      <p className="winner-card__date num">{formatWinnerDate(winner.createdAt)}</p>
    </article>
  );
}
