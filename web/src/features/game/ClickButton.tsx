import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

export const FLASH_MS = 500;

/** The +1 button; each press flashes for 500 ms (docs/client-contract.md). */
export function ClickButton({ disabled, onClick }: { disabled: boolean; onClick: () => void }) {
  const { t } = useTranslation();
  const [flashes, setFlashes] = useState<number[]>([]);
  const nextId = useRef(0);
  const timers = useRef<Set<ReturnType<typeof setTimeout>>>(new Set());
  useEffect(() => {
    const pending = timers.current;
    return () => pending.forEach(clearTimeout);
  }, []);

  const press = () => {
    if (disabled) return;
    const id = nextId.current++;
    setFlashes((list) => [...list, id]);
    const timer = setTimeout(() => {
      timers.current.delete(timer);
      setFlashes((list) => list.filter((f) => f !== id));
    }, FLASH_MS);
    timers.current.add(timer);
    onClick();
  };

  // The flashes sit beside the button, not in it: the button's visible text stays "+1", which its
  // accessible name begins with, however many flashes are showing (WCAG 2.5.3, label in name).
  return (
    <div className="click-button-wrap">
      <button
        type="button"
        className={`click-button${flashes.length > 0 ? ' click-button--flash' : ''}`}
        disabled={disabled}
        onClick={press}
        aria-label={t('game.clickButtonLabel')}
      >
        <span className="click-button__face" aria-hidden="true">
          {t('game.clickButton')}
        </span>
      </button>
      {flashes.map((id) => (
        <span key={id} className="click-button__flash" aria-hidden="true">
          {t('game.clickButton')}
        </span>
      ))}
    </div>
  );
}
