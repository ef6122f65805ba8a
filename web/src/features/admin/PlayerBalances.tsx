import type { AdminUserBalances } from '@omc/contracts';
import { useTranslation } from 'react-i18next';
import { formatCount, formatPrice } from '../../i18n/format';

const UNKNOWN = '–';

/** The clicks a player can spend now, as the game answered for the page (– when it did not). */
export function PlayerClicks({ balances }: { balances: AdminUserBalances | undefined }) {
  const { t, i18n } = useTranslation();
  if (!balances || balances.freeClicks === null) return <td>{UNKNOWN}</td>;
  return (
    <td>
      {balances.hasInfiniteClicks
        ? t('playerBalances.unlimited')
        : formatCount(balances.freeClicks, i18n.language)}
    </td>
  );
}

/** Winnings owed, spent and paid out, as payments answered for the page (– when it did not). */
export function PlayerMoney({ balances }: { balances: AdminUserBalances | undefined }) {
  const { t, i18n } = useTranslation();
  if (!balances || balances.potEarned === null) return <td>{UNKNOWN}</td>;
  const money = (value: number | null) => (value === null ? UNKNOWN : formatPrice(value, i18n.language));
  return (
    <td>
      <dl className="player-money">
        <dt>{t('playerBalances.owed')}</dt>
        <dd>{money(balances.potEarned)}</dd>
        <dt>{t('playerBalances.spent')}</dt>
        <dd>{money(balances.spent)}</dd>
        <dt>{t('playerBalances.paidOut')}</dt>
        <dd>{money(balances.paidOut)}</dd>
      </dl>
    </td>
  );
}
