// Alerts of the client contract (transaction ids, winners, errors) as toasts: a translation key with its
// values, so a language change re-renders them, or a server message shown as sent.
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { useTranslation } from 'react-i18next';

export type NoticeTone = 'success' | 'error' | 'info' | 'winner';

export type NoticeInput = { tone: NoticeTone } & (
  { key: string; values?: Record<string, unknown> } | { text: string }
);
type Notice = NoticeInput & { id: number };

interface Notices {
  notify(notice: NoticeInput): void;
}

const NoticesContext = createContext<Notices | null>(null);
const LIFETIME_MS = 8000;

export function NoticesProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const [notices, setNotices] = useState<Notice[]>([]);
  const nextId = useRef(1);
  // Each notice's own timer, cleared when the provider goes (no state set on a page that is gone).
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());
  useEffect(() => {
    const pending = timers.current;
    return () => {
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
    };
  }, []);

  const dismiss = useCallback((id: number) => setNotices((list) => list.filter((n) => n.id !== id)), []);
  const notify = useCallback(
    (notice: NoticeInput) => {
      const id = nextId.current++;
      setNotices((list) => [...list.slice(-3), { ...notice, id }]);
      const timer = setTimeout(() => {
        timers.current.delete(timer);
        dismiss(id);
      }, LIFETIME_MS);
      timers.current.add(timer);
    },
    [dismiss],
  );
  const value = useMemo(() => ({ notify }), [notify]);

  return (
    <NoticesContext.Provider value={value}>
      {children}
      <div className="notices" aria-live="polite">
        {notices.map((notice) => (
          <div
            key={notice.id}
            className={`notice notice--${notice.tone}`}
            role={notice.tone === 'error' ? 'alert' : 'status'}
            data-testid={`notice-${notice.tone}`}
          >
            <span className="notice__text">
              {'text' in notice ? notice.text : t(notice.key, notice.values)}
            </span>
            <button
              type="button"
              className="notice__close"
              aria-label={t('common.close')}
              onClick={() => dismiss(notice.id)}
            >
              <span aria-hidden="true">×</span>
            </button>
          </div>
        ))}
      </div>
    </NoticesContext.Provider>
  );
}

export function useNotices(): Notices {
  const notices = useContext(NoticesContext);
  if (!notices) throw new Error('useNotices outside NoticesProvider');
  return notices;
}
