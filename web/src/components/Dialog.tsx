// The one dialog of the app (docs/client-contract.md): labelled, Tab trapped inside, Escape and overlay click
// close it unless told otherwise, and focus goes back to whatever opened it.
import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), iframe, [tabindex]:not([tabindex="-1"])';

export interface DialogProps {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  children: ReactNode;
  closeOnEscape?: boolean;
  closeOnOverlay?: boolean;
  /** Field to focus on open; otherwise the first focusable element. */
  initialFocus?: RefObject<HTMLElement | null>;
  /** Wait this long before focusing (the login dialog waits 50 ms). */
  initialFocusDelayMs?: number;
  className?: string;
}

function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) => !el.hasAttribute('data-focus-skip'),
  );
}

export function Dialog(props: DialogProps) {
  if (!props.open) return null;
  return <OpenDialog {...props} />;
}

function OpenDialog({
  onClose,
  title,
  children,
  closeOnEscape = true,
  closeOnOverlay = true,
  initialFocus,
  initialFocusDelayMs = 0,
  className,
}: DialogProps) {
  const { t } = useTranslation();
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;

  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const focusFirst = () => {
      const root = panel.current;
      if (!root) return;
      const target =
        initialFocus?.current ??
        focusables(root).find((el) => !el.classList.contains('dialog__close')) ??
        root;
      target.focus();
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (initialFocusDelayMs > 0) {
      panel.current?.focus();
      // Late focus only where nobody has moved it yet: a player (or a password manager) who already
      // reached a field keeps typing there.
      const stillOnPanel = () => document.activeElement === panel.current;
      timer = setTimeout(() => stillOnPanel() && focusFirst(), initialFocusDelayMs);
    } else focusFirst();
    return () => {
      if (timer) clearTimeout(timer);
      if (opener && opener.isConnected) opener.focus();
    };
    // Only on open and close: the opener is the element focused when the dialog appeared.
  }, []);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape' && closeOnEscape) {
      event.stopPropagation();
      onCloseRef.current();
      return;
    }
    if (event.key !== 'Tab' || !panel.current) return;
    const items = focusables(panel.current);
    if (items.length === 0) {
      event.preventDefault();
      return;
    }
    const first = items[0]!;
    const last = items[items.length - 1]!;
    const active = document.activeElement;
    const inside = active instanceof Node && panel.current.contains(active);
    if (event.shiftKey && (active === first || !inside || active === panel.current)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (active === last || !inside)) {
      event.preventDefault();
      first.focus();
    }
  };

  return createPortal(
    <div
      className="dialog-overlay"
      onMouseDown={(event) => {
        if (event.target !== event.currentTarget) return;
        // Keep focus where it is: closing hands it back to the opener.
        event.preventDefault();
        if (closeOnOverlay) onCloseRef.current();
      }}
      data-testid="dialog-overlay"
    >
      <div
        ref={panel}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        className={`dialog ${className ?? ''}`}
        onKeyDown={onKeyDown}
      >
        <header className="dialog__header">
          <h2 id={titleId} className="dialog__title">
            {title}
          </h2>
          <button
            type="button"
            className="dialog__close"
            aria-label={t('common.close')}
            onClick={() => onCloseRef.current()}
          >
            <span aria-hidden="true">×</span>
          </button>
        </header>
        <div className="dialog__body">{children}</div>
      </div>
    </div>,
    document.body,
  );
}
