import type { GameRules } from '@omc/contracts';
import { useTranslation } from 'react-i18next';
import { formatCount } from '../../i18n/format';
import { allMilestones, milestoneProgress } from './milestones';

export function MilestoneBar({ rules, globalClicks }: { rules: GameRules; globalClicks: number }) {
  const { t, i18n } = useTranslation();
  const { next, ratio } = milestoneProgress(rules, globalClicks);
  const at = formatCount(next.at, i18n.language);
  const label =
    'winsPot' in next
      ? t('game.milestone.nextPot', { at })
      : t('game.milestone.nextReward', { at, reward: formatCount(next.freeClicks, i18n.language) });
  return (
    <div className="milestone">
      <div className="milestone__label" id="milestone-label">
        {label}
      </div>
      <div
        className="milestone__track"
        role="progressbar"
        aria-labelledby="milestone-label"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(ratio * 100)}
      >
        <div className="milestone__fill" style={{ width: `${ratio * 100}%` }} />
      </div>
      <ul className="milestone__list">
        {allMilestones(rules).map((m) => (
          <li
            key={m.at}
            className={globalClicks >= m.at ? 'milestone__item milestone__item--done' : 'milestone__item'}
          >
            <span className="num">{formatCount(m.at, i18n.language)}</span>
            <span>
              {'winsPot' in m
                ? t('game.milestone.rewardPot')
                : t('game.milestone.rewardClicks', { reward: formatCount(m.freeClicks, i18n.language) })}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
