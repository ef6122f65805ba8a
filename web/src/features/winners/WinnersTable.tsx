import type { Winner } from '@omc/contracts';
import { useTranslation } from 'react-i18next';
import { formatWinnerDate, formatWinnerPot } from './winnerFormat';

export function WinnersTable({ winners }: { winners: Winner[] }) {
  const { t } = useTranslation();
  return (
    <div className="table-wrap">
      <table className="winners-table">
        <caption className="sr-only">{t('winners.title')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('winners.user')}</th>
            <th scope="col" className="num-col">
              {t('winners.pot')}
            </th>
            <th scope="col" className="num-col">
              {t('winners.date')}
            </th>
          </tr>
        </thead>
        <tbody>
          {winners.map((winner) => (
            <tr key={winner._id}>
              <td translate={winner.userId ? 'no' : undefined}>
                {winner.userId?.username ?? t('winners.unknownUser')}
              </td>
              <td className="num num-col">{formatWinnerPot(winner.pot)}</td>
              <td className="num num-col">{formatWinnerDate(winner.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
