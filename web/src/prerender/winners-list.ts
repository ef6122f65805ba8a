// The winners page drawn around a list, as a template the gateway fills (@omc/contracts,
// winners-page.ts): the app draws a page of sample winners, and their values are found again in the
// rows and put back as WINNER_FIELDS.
import { WINNER_FIELDS, WINNER_ROWS_MARK, type WinnersListShell, type WinnersResponse } from '@omc/contracts';
import { formatWinnerDate, formatWinnerPot } from '../features/winners/winnerFormat';

/** Two winners whose values are found again in the drawn rows and put back as WINNER_FIELDS. */
const SAMPLE = {
  name: 'omc-sample-winner',
  pot: 424242.42,
  createdAt: '2001-02-03T12:00:00.000Z',
} as const;
export const SAMPLE_WINNERS: WinnersResponse = {
  winners: [
    { _id: 'sample-1', userId: { username: SAMPLE.name }, pot: SAMPLE.pot, createdAt: SAMPLE.createdAt },
    { _id: 'sample-2', userId: null, pot: SAMPLE.pot, createdAt: SAMPLE.createdAt },
  ],
  nextCursor: null,
};

/** `text` with `sample` replaced by `field`, which it must hold exactly once. */
function templated(text: string, sample: string, field: string): string {
  const parts = text.split(sample);
  if (parts.length !== 2) throw new Error(`a drawn winner row holds "${sample}" ${parts.length - 1} times`);
  return parts.join(field);
}

const TBODY = { open: '<tbody>', close: '</tbody>' };

/**
 * The template from the app's markup of SAMPLE_WINNERS: the rows' place marked, and each row made a
 * template of its values. Throws when the drawn table is not the shape the gateway fills.
 */
export function winnersListTemplate(markup: string): Omit<WinnersListShell, 'page'> & { markup: string } {
  const from = markup.indexOf(TBODY.open);
  const to = markup.indexOf(TBODY.close);
  const body = from >= 0 && to > from ? markup.slice(from + TBODY.open.length, to) : '';
  const rows = body.match(/<tr[\s\S]*?<\/tr>/g) ?? [];
  if (rows.length !== 2 || rows.join('') !== body || markup.indexOf(TBODY.open, to) >= 0)
    throw new Error('the winners page drew no table of the two sample winners');
  const values = (row: string) =>
    templated(
      templated(row, formatWinnerPot(SAMPLE.pot), WINNER_FIELDS.pot),
      formatWinnerDate(SAMPLE.createdAt),
      WINNER_FIELDS.date,
    );
  return {
    markup: markup.slice(0, from + TBODY.open.length) + WINNER_ROWS_MARK + markup.slice(to),
    rows: { named: templated(values(rows[0]!), SAMPLE.name, WINNER_FIELDS.name), unnamed: values(rows[1]!) },
  };
}
