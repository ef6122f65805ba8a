// The profile's list of the account's sessions: each with its device, where it was last used from and
// when; any other one can be ended, or all others at once. Ending one signs that device out at once.
import type { SessionInfo } from '@omc/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { authApi, sessionsQuery } from '../../api/auth';
import { FormMessage } from '../../components/FormMessage';
import { localeOf } from '../../i18n/format';
import { useSession } from '../../session/SessionProvider';

function when(iso: string, language: string): string {
  return new Intl.DateTimeFormat(localeOf(language), { dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(iso),
  );
}

export function SessionsPanel() {
  const { t, i18n } = useTranslation();
  const { token, replaceToken } = useSession();
  const queryClient = useQueryClient();
  const sessions = useQuery(sessionsQuery(token));
  const [message, setMessage] = useState<{ error?: string; success?: string }>({});
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['sessions'] });

  const endOne = useMutation({
    mutationFn: (id: string) => authApi.endSession(token!, id),
    onSuccess: () => {
      setMessage({ success: t('sessions.ended') });
      void refresh();
    },
    onError: () => setMessage({ error: t('sessions.endError') }),
  });
  const endOthers = useMutation({
    mutationFn: () => authApi.endOtherSessions(token!),
    onSuccess: (answer) => {
      // Every earlier token ended, this one too: carry on with the one the answer brings.
      replaceToken(answer.token);
      setMessage({ success: t('sessions.endedOthers') });
      void refresh();
    },
    onError: () => setMessage({ error: t('sessions.endError') }),
  });

  const list: SessionInfo[] = sessions.data?.sessions ?? [];
  const others = list.filter((s) => !s.current);
  return (
    <section className="sessions" aria-labelledby="sessions-title">
      <h2 id="sessions-title" className="sessions__title">
        {t('sessions.title')}
      </h2>
      {sessions.isError ? <p role="alert">{t('sessions.error')}</p> : null}
      <ul className="sessions__list">
        {list.map((session) => (
          <li key={session.id} className="sessions__item" data-testid="session">
            <div>
              <p className="sessions__device">
                <span translate="no">{session.device}</span>
                {session.current ? <span className="sessions__current">{t('sessions.current')}</span> : null}
              </p>
              <p className="sessions__meta">
                {session.ip ? t('sessions.from', { ip: session.ip }) : t('sessions.unknownPlace')}
                {' · '}
                {t('sessions.lastUsed', { when: when(session.lastUsedAt, i18n.language) })}
              </p>
            </div>
            {session.current ? null : (
              <button
                type="button"
                className="btn btn--danger"
                aria-label={t('sessions.endLabel', { device: session.device })}
                disabled={endOne.isPending}
                onClick={() => endOne.mutate(session.id)}
              >
                {t('sessions.end')}
              </button>
            )}
          </li>
        ))}
      </ul>
      {sessions.isSuccess && others.length === 0 ? (
        <p className="sessions__meta">{t('sessions.none')}</p>
      ) : null}
      {others.length > 1 ? (
        <button
          type="button"
          className="btn btn--secondary"
          disabled={endOthers.isPending}
          onClick={() => endOthers.mutate()}
        >
          {t('sessions.endOthers')}
        </button>
      ) : null}
      {message.error || message.success ? (
        <FormMessage error={message.error ?? null} success={message.success ?? null} />
      ) : null}
    </section>
  );
}
