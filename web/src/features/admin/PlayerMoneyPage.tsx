import type { AdminPurchase } from '@omc/contracts';
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useParams } from 'react-router-dom';
import { moneyApi } from '../../api/money';
import { errorText } from '../../api/http';
import { FormMessage } from '../../components/FormMessage';
import { PageHeader } from '../../components/PageHeader';
import { formatPrice } from '../../i18n/format';
import { useSession } from '../../session/SessionProvider';

/** One player's purchases and payouts with their provider ids, and refunding a purchase. */
export function PlayerMoneyPage() {
  const { t } = useTranslation();
  const { id = '' } = useParams();
  const username = (useLocation().state as { username?: string } | null)?.username ?? id;
  const [refunding, setRefunding] = useState<AdminPurchase | null>(null);
  return (
    <div className="page page--player-money">
      <PageHeader />
      <main className="panel">
        <p>
          <Link to="/admin/players">{t('money.back')}</Link>
        </p>
        <h1 className="panel__title">{t('money.title', { username })}</h1>
        <Purchases userId={id} onRefund={setRefunding} />
        {refunding ? (
          <RefundForm key={refunding.id} purchase={refunding} onDone={() => setRefunding(null)} />
        ) : null}
        <Payouts userId={id} />
      </main>
    </div>
  );
}

function Purchases({ userId, onRefund }: { userId: string; onRefund: (p: AdminPurchase) => void }) {
  const { t, i18n } = useTranslation();
  const { token } = useSession();
  const purchases = useInfiniteQuery({
    queryKey: ['admin', 'money', 'purchases', userId],
    queryFn: ({ pageParam }) => moneyApi.purchases(token!, userId, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    enabled: Boolean(token && userId),
  });
  const rows = purchases.data?.pages.flatMap((p) => p.purchases) ?? [];
  return (
    <section className="panel__section" aria-labelledby="money-purchases">
      <h2 id="money-purchases">{t('money.purchases')}</h2>
      {purchases.isError ? <FormMessage error={errorText(purchases.error, t('money.loadError'))} /> : null}
      <table className="table">
        <caption>{t('money.purchasesCaption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('money.when')}</th>
            <th scope="col">{t('money.pack')}</th>
            <th scope="col">{t('money.amount')}</th>
            <th scope="col">{t('money.status')}</th>
            <th scope="col">{t('money.transaction')}</th>
            <th scope="col">{t('money.refund')}</th>
            <th scope="col">{t('money.actions')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((purchase) => (
            <tr key={purchase.id} data-testid="purchase-row">
              <th scope="row">{new Date(purchase.createdAt).toLocaleString(i18n.language)}</th>
              <td>
                {purchase.clicks === null
                  ? t('money.unlimited')
                  : t('money.clicks', { count: purchase.clicks })}
              </td>
              <td>{formatPrice(purchase.amount, i18n.language)}</td>
              <td>{t(`money.statuses.${purchase.status}`)}</td>
              <td>
                <code>{purchase.transactionId ?? '–'}</code>
              </td>
              <td>
                {purchase.refund
                  ? t('money.refundDetail', {
                      status: t(`money.refundStatuses.${purchase.refund.status}`),
                      clicks: purchase.refund.clicksTakenBack,
                      reason: purchase.refund.reason,
                    })
                  : '–'}
              </td>
              <td>
                {purchase.status === 'succeeded' && purchase.refund?.status !== 'completed' ? (
                  <button type="button" className="btn btn--secondary" onClick={() => onRefund(purchase)}>
                    {t('money.refundAction', { amount: formatPrice(purchase.amount, i18n.language) })}
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {purchases.isSuccess && rows.length === 0 ? <p>{t('money.noPurchases')}</p> : null}
      {purchases.hasNextPage ? (
        <button
          type="button"
          className="btn btn--ghost"
          disabled={purchases.isFetchingNextPage}
          onClick={() => void purchases.fetchNextPage()}
        >
          {t('money.more')}
        </button>
      ) : null}
    </section>
  );
}

function RefundForm({ purchase, onDone }: { purchase: AdminPurchase; onDone: () => void }) {
  const { t, i18n } = useTranslation();
  const { token } = useSession();
  const queryClient = useQueryClient();
  const reasonId = useId();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [success, setSuccess] = useState<string | null>(null);
  const amount = formatPrice(purchase.amount, i18n.language);
  const act = useMutation({
    mutationFn: () => moneyApi.refund(token!, purchase.id, reason.trim()),
    onSuccess: (answer) => {
      setSuccess(
        t('money.refunded', {
          amount,
          clicks: answer.refund.clicksTakenBack,
          how: t(`money.kinds.${answer.refund.kind ?? 'refund'}`),
        }),
      );
      void queryClient.invalidateQueries({ queryKey: ['admin'] });
    },
    onError: (failure) => setError(errorText(failure, t('money.refundError'))),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSuccess(null);
    if (reason.trim().length < 3) return setError(t('money.reasonRequired'));
    setError(null);
    act.mutate();
  };
  return (
    <section className="panel__section" aria-labelledby={`${reasonId}-title`}>
      <h2 id={`${reasonId}-title`}>{t('money.refundTitle', { amount })}</h2>
      <p>{t('money.refundRules')}</p>
      <form className="form" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor={reasonId}>{t('money.reason')}</label>
          <textarea
            id={reasonId}
            value={reason}
            maxLength={500}
            onChange={(e) => setReason(e.target.value)}
          />
        </div>
        <FormMessage error={error} success={success} />
        <div className="form__actions">
          <button type="submit" className="btn btn--danger" disabled={act.isPending || success !== null}>
            {t('money.refundSubmit')}
          </button>
          <button type="button" className="btn btn--ghost" onClick={onDone}>
            {t('money.close')}
          </button>
        </div>
      </form>
    </section>
  );
}

function Payouts({ userId }: { userId: string }) {
  const { t, i18n } = useTranslation();
  const { token } = useSession();
  const payouts = useInfiniteQuery({
    queryKey: ['admin', 'money', 'payouts', userId],
    queryFn: ({ pageParam }) => moneyApi.payouts(token!, userId, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    enabled: Boolean(token && userId),
  });
  const rows = payouts.data?.pages.flatMap((p) => p.payouts) ?? [];
  const held = payouts.data?.pages[0]?.payoutHeld;
  return (
    <section className="panel__section" aria-labelledby="money-payouts">
      <h2 id="money-payouts">{t('money.payouts')}</h2>
      {payouts.isError ? <FormMessage error={errorText(payouts.error, t('money.loadError'))} /> : null}
      {held ? <p data-testid="payout-held">{t('money.payoutHeld', { reason: held })}</p> : null}
      <table className="table">
        <caption>{t('money.payoutsCaption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('money.when')}</th>
            <th scope="col">{t('money.kind')}</th>
            <th scope="col">{t('money.amount')}</th>
            <th scope="col">{t('money.status')}</th>
            <th scope="col">{t('money.paypalEmail')}</th>
            <th scope="col">{t('money.batch')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((payout) => (
            <tr key={payout.id} data-testid="payout-row">
              <th scope="row">{new Date(payout.createdAt).toLocaleString(i18n.language)}</th>
              <td>{t(`money.payoutKinds.${payout.kind}`)}</td>
              <td>{formatPrice(payout.amount, i18n.language)}</td>
              <td>{t(`money.payoutStatuses.${payout.status}`)}</td>
              <td>{payout.paypalEmail}</td>
              <td>
                <code>{payout.batchId ?? '–'}</code> / <code>{payout.senderBatchId}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {payouts.isSuccess && rows.length === 0 ? <p>{t('money.noPayouts')}</p> : null}
      {payouts.hasNextPage ? (
        <button
          type="button"
          className="btn btn--ghost"
          disabled={payouts.isFetchingNextPage}
          onClick={() => void payouts.fetchNextPage()}
        >
          {t('money.more')}
        </button>
      ) : null}
    </section>
  );
}
