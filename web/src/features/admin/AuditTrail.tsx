import { useInfiniteQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { adminApi } from '../../api/admin';
import { errorText } from '../../api/http';
import { FormMessage } from '../../components/FormMessage';
import { useSession } from '../../session/SessionProvider';

/** The audit log, newest first: everything, or what concerns one account. */
export function AuditTrail({ targetId }: { targetId?: string }) {
  const { t } = useTranslation();
  const { token } = useSession();
  const audit = useInfiniteQuery({
    queryKey: ['admin', 'audit', targetId ?? null],
    queryFn: ({ pageParam }) => adminApi.audit(token!, { targetId, cursor: pageParam }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    enabled: Boolean(token),
  });
  const entries = audit.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <div className="audit">
      {audit.isError ? <FormMessage error={errorText(audit.error, t('audit.loadError'))} /> : null}
      <table className="table">
        <caption>{targetId ? t('audit.captionFor') : t('audit.caption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('audit.when')}</th>
            <th scope="col">{t('audit.action')}</th>
            <th scope="col">{t('audit.actor')}</th>
            <th scope="col">{t('audit.target')}</th>
            <th scope="col">{t('audit.detail')}</th>
            <th scope="col">{t('audit.address')}</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td>{new Date(entry.at).toLocaleString()}</td>
              <td>{t(`audit.actions.${entry.action}`, { defaultValue: entry.action })}</td>
              <td>{entry.actor?.label ?? '–'}</td>
              <td>{entry.target?.label ?? '–'}</td>
              <td>
                <code>{JSON.stringify(entry.detail)}</code>
              </td>
              <td>{entry.ip ?? '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {audit.isSuccess && entries.length === 0 ? <p>{t('audit.none')}</p> : null}
      {audit.hasNextPage ? (
        <button
          type="button"
          className="btn btn--ghost"
          disabled={audit.isFetchingNextPage}
          onClick={() => void audit.fetchNextPage()}
        >
          {t('audit.more')}
        </button>
      ) : null}
    </div>
  );
}
