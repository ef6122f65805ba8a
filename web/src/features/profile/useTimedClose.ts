import { useEffect, useRef } from 'react';

/** Success dialogs close 1 s after their message (docs/client-contract.md). */
export const SUCCESS_CLOSE_MS = 1000;

export function useTimedClose(): (action: () => void) => void {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  return (action) => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(action, SUCCESS_CLOSE_MS);
  };
}
