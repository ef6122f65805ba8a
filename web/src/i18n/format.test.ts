import { describe, expect, it } from 'vitest';
import { formatWinnerDateIn, winnerDateFormat } from '@omc/contracts';
import { formatWinnerDate, formatWinnerPot } from '../features/winners/winnerFormat';
import { formatMoney } from './format';

describe('formats', () => {
  it('shows winners pots with a $ suffix and two decimals', () => {
    expect(formatWinnerPot(12.5)).toBe('12.50$');
    expect(formatWinnerPot(0)).toBe('0.00$');
    expect(formatWinnerPot(1234.567)).toBe('1234.57$');
  });

  it('shows winners dates as dd/mm/yyyy', () => {
    expect(formatWinnerDate('2026-03-05T12:00:00.000Z')).toBe('05/03/2026');
    expect(formatWinnerDate('2025-12-31T12:00:00+00:00')).toBe('31/12/2025');
    expect(formatWinnerDate('not a date')).toBe('');
  });

  it('shows a winners date in a time zone the gateway is told (the first page it draws)', () => {
    const late = '2025-12-31T23:30:00Z';
    expect(formatWinnerDateIn(late, winnerDateFormat('UTC'))).toBe('31/12/2025');
    expect(formatWinnerDateIn(late, winnerDateFormat('Europe/Madrid'))).toBe('01/01/2026');
    expect(formatWinnerDateIn(late, winnerDateFormat('America/Los_Angeles'))).toBe('31/12/2025');
  });

  it('puts $ before the amount in English and € after it elsewhere', () => {
    expect(formatMoney(1234.5, 'en')).toBe('$1,234.50');
    expect(formatMoney(1234.5, 'es').replace(/\s/g, ' ')).toMatch(/^1\.?234,50 €$/);
    expect(formatMoney(0.5, 'de').replace(/\s/g, ' ')).toBe('0,50 €');
  });
});
