import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { winnersQuery } from '../../api/game';
import { ApiClientError } from '../../api/http';
import { FormMessage } from '../../components/FormMessage';
import { PageHeader } from '../../components/PageHeader';
import { embeddedWinners, forgetEmbeddedWinners, syncTimeZoneHint } from './embedded';
import { RandomWinnerCard } from './RandomWinnerCard';
import { WinnersTable } from './WinnersTable';

export function WinnersPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [mode, setMode] = useState<'table' | 'random'>('table');
  // The list the gateway drew with the page, if it did: the first render shows the same rows, and the
  // list is asked for in the background as on any visit (a round may have been won since it was read).
  const [drawn] = useState(embeddedWinners);
  const winners = useInfiniteQuery({
    ...winnersQuery(),
    ...(drawn && {
      initialData: { pages: [drawn.page], pageParams: [undefined] },
      initialDataUpdatedAt: drawn.readAt,
    }),
  });
  useEffect(() => {
    forgetEmbeddedWinners();
    syncTimeZoneHint();
  }, []);
  const list = winners.data?.pages.flatMap((page) => page.winners) ?? [];
  const loadError =
    winners.error instanceof ApiClientError && winners.error.status >= 500
      ? t('winners.errorInternal')
      : t('winners.errorFetch');

  return (
    <div className="page page--winners">
      <PageHeader />
      <main className="panel">
        <div className="panel__bar">
          <button type="button" className="btn btn--ghost" onClick={() => navigate('/game')}>
            {t('common.backToGame')}
          </button>
          <h1 className="panel__title">{t('winners.title')}</h1>
          <button
            type="button"
            className="btn btn--secondary"
            aria-pressed={mode === 'random'}
            onClick={() => setMode(mode === 'table' ? 'random' : 'table')}
          >
            {mode === 'table' ? t('winners.showRandom') : t('winners.showTable')}
          </button>
        </div>
        {winners.isPending ? <p className="muted">{t('common.loading')}</p> : null}
        {winners.isError ? <FormMessage error={loadError} /> : null}
        {winners.isSuccess && list.length === 0 ? <p className="empty">{t('winners.empty')}</p> : null}
        {list.length > 0 ? (
          mode === 'table' ? (
            <>
              <WinnersTable winners={list} />
              {winners.hasNextPage ? (
                <button
                  type="button"
                  className="btn btn--ghost btn--block"
                  disabled={winners.isFetchingNextPage}
                  onClick={() => void winners.fetchNextPage()}
                >
                  {t('winners.loadMore')}
                </button>
              ) : null}
            </>
          ) : (
            <RandomWinnerCard winners={list} />
          )
        ) : null}
      </main>
    </div>
  );
}
