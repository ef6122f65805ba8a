// The winners list's values (docs/client-contract.md), written as the gateway writes the first page it
// draws (@omc/contracts' web-shell), so the app's first render shows the same text.
import { formatWinnerDateIn, winnerDateFormat } from '@omc/contracts';

export { formatWinnerPot } from '@omc/contracts';

let localDates: Intl.DateTimeFormat | undefined;

/** dd/mm/yyyy in the viewer's time zone. */
export function formatWinnerDate(iso: string): string {
  return formatWinnerDateIn(iso, (localDates ??= winnerDateFormat()));
}
