import type { AdminUserEntry } from '@omc/contracts';
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { adminApi } from '../../api/admin';
import { errorText } from '../../api/http';
import { FormMessage } from '../../components/FormMessage';
import { PageHeader } from '../../components/PageHeader';
import { useSession } from '../../session/SessionProvider';
import { AuditTrail } from './AuditTrail';
import { PlayerClicks, PlayerMoney } from './PlayerBalances';

/** Finding a player: search by name or email prefix, page on, suspend or restore with a reason. */
export function PlayersPage() {
  const { t } = useTranslation();
  const { token } = useSession();
  const searchId = useId();
  const [draft, setDraft] = useState('');
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState<AdminUserEntry | null>(null);
  const players = useInfiniteQuery({
    queryKey: ['admin', 'players', query],
    queryFn: ({ pageParam }) => adminApi.players(token!, { query: query || undefined, cursor: pageParam }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    enabled: Boolean(token),
  });
  const rows = players.data?.pages.flatMap((p) => p.users) ?? [];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSelected(null);
    setQuery(draft.trim());
  };

  return (
    <div className="page page--players">
      <PageHeader />
      <main className="panel">
        <h1 className="panel__title">{t('players.title')}</h1>
        <form className="form form--inline" role="search" onSubmit={submit}>
          <div className="field">
            <label htmlFor={searchId}>{t('players.search')}</label>
            <input id={searchId} type="search" value={draft} onChange={(e) => setDraft(e.target.value)} />
          </div>
          <button type="submit" className="btn btn--primary">
            {t('players.searchButton')}
          </button>
        </form>
        {players.isError ? <FormMessage error={errorText(players.error, t('players.loadError'))} /> : null}
        <table className="table">
          <caption>{t('players.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('players.username')}</th>
              <th scope="col">{t('players.email')}</th>
              <th scope="col">{t('players.role')}</th>
              <th scope="col">{t('players.verified')}</th>
              <th scope="col">{t('players.status')}</th>
              <th scope="col">{t('players.created')}</th>
              <th scope="col">{t('playerBalances.clicks')}</th>
              <th scope="col">{t('playerBalances.money')}</th>
              <th scope="col">{t('players.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((user) => (
              <tr key={user.id} data-testid="player-row">
                <th scope="row">{user.username}</th>
                <td>{user.email ?? '–'}</td>
                <td>{t(`roles.${user.role}`)}</td>
                <td>{user.verified ? t('players.yes') : t('players.no')}</td>
                <td>
                  {user.suspended
                    ? t('players.suspendedBecause', { reason: user.suspendedReason ?? '' })
                    : t('players.active')}
                </td>
                <td>{new Date(user.createdAt).toLocaleDateString()}</td>
                <PlayerClicks balances={user.balances} />
                <PlayerMoney balances={user.balances} />
                <td>
                  <button type="button" className="btn btn--secondary" onClick={() => setSelected(user)}>
                    {t('players.manage', { username: user.username })}
                  </button>{' '}
                  <Link to={`/admin/players/${user.id}/purchases`} state={{ username: user.username }}>
                    {t('money.link', { username: user.username })}
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {players.isSuccess && rows.length === 0 ? <p>{t('players.none')}</p> : null}
        {players.hasNextPage ? (
          <button
            type="button"
            className="btn btn--ghost"
            disabled={players.isFetchingNextPage}
            onClick={() => void players.fetchNextPage()}
          >
            {t('players.more')}
          </button>
        ) : null}
        {selected ? <SuspensionForm key={selected.id} user={selected} onDone={setSelected} /> : null}
      </main>
    </div>
  );
}

function SuspensionForm({ user, onDone }: { user: AdminUserEntry; onDone: (user: AdminUserEntry) => void }) {
  const { t } = useTranslation();
  const { token } = useSession();
  const queryClient = useQueryClient();
  const reasonId = useId();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [success, setSuccess] = useState<string | null>(null);
  const act = useMutation({
    mutationFn: () =>
      user.suspended ? adminApi.restore(token!, user.id, reason) : adminApi.suspend(token!, user.id, reason),
    onSuccess: (answer) => {
      setSuccess(answer.user.suspended ? t('players.suspendedDone') : t('players.restoredDone'));
      void queryClient.invalidateQueries({ queryKey: ['admin'] });
      onDone(answer.user);
    },
    onError: (failure) => setError(errorText(failure, t('players.actionError'))),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSuccess(null);
    if (reason.trim().length < 3) return setError(t('players.reasonRequired'));
    setError(null);
    act.mutate();
  };
  return (
    <section className="panel__section" aria-labelledby={`${reasonId}-title`}>
      <h2 id={`${reasonId}-title`}>{t('players.manageTitle', { username: user.username })}</h2>
      <form className="form" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor={reasonId}>
            {user.suspended ? t('players.restoreReason') : t('players.suspendReason')}
          </label>
          <textarea
            id={reasonId}
            value={reason}
            maxLength={500}
            onChange={(e) => setReason(e.target.value)}
          />
        </div>
        <FormMessage error={error} success={success} />
        <div className="form__actions">
          <button
            type="submit"
            className={user.suspended ? 'btn btn--primary' : 'btn btn--danger'}
            disabled={act.isPending}
          >
            {user.suspended ? t('players.restore') : t('players.suspend')}
          </button>
        </div>
      </form>
      <AuditTrail targetId={user.id} />
    </section>
  );
}
