import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

const SIZE = 280;
const STROKE = 14;
const RADIUS = (SIZE - STROKE) / 2;
const CIRCUMFERENCE = 2 * Math.PI * RADIUS;

/** The round's progress as a ring, full at the round target; holds the click button. */
export function ProgressRing({
  value,
  target,
  children,
}: {
  value: number;
  target: number;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const ratio = target > 0 ? Math.min(1, value / target) : 0;
  const percent = Math.round(ratio * 1000) / 10;
  return (
    <div className="ring">
      <svg
        className="ring__svg"
        viewBox={`0 0 ${SIZE} ${SIZE}`}
        role="progressbar"
        aria-label={t('game.ringLabel')}
        aria-valuemin={0}
        aria-valuemax={target}
        aria-valuenow={Math.min(value, target)}
        aria-valuetext={t('game.ringValue', { percent })}
      >
        <defs>
          <linearGradient id="ring-gradient" x1="0" y1="0" x2="1" y2="1">
            <stop offset="0%" stopColor="var(--accent-2)" />
            <stop offset="100%" stopColor="var(--accent)" />
          </linearGradient>
        </defs>
        <circle className="ring__track" cx={SIZE / 2} cy={SIZE / 2} r={RADIUS} strokeWidth={STROKE} />
        <circle
          className="ring__value"
          cx={SIZE / 2}
          cy={SIZE / 2}
          r={RADIUS}
          strokeWidth={STROKE}
          strokeDasharray={CIRCUMFERENCE}
          strokeDashoffset={CIRCUMFERENCE * (1 - ratio)}
          transform={`rotate(-90 ${SIZE / 2} ${SIZE / 2})`}
        />
      </svg>
      <div className="ring__content">{children}</div>
    </div>
  );
}
