import { act, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, json } from '../../test/fakeApi';
import { renderApp } from '../../test/render';
import { FADE_MS, ROTATION_MS } from './RandomWinnerCard';

const winners = [
  { _id: 'w2', userId: { username: 'bea' }, pot: 12.5, createdAt: '2026-03-05T12:00:00.000Z' },
  { _id: 'w1', userId: null, pot: 3, createdAt: '2025-12-31T12:00:00.000Z' },
];

describe('winners page', () => {
  it('lists each winner with dd/mm/yyyy, a $ pot with 2 decimals and Desconocido for a deleted user', async () => {
    fakeApi({ 'GET /api/winners': () => json(200, { winners, nextCursor: null }) });
    renderApp('/winners');
    const rows = await screen.findAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(
      within(rows[1]!)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['bea', '12.50$', '05/03/2026']);
    expect(
      within(rows[2]!)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['Desconocido', '3.00$', '31/12/2025']);
  });

  it('shows the list the gateway drew with the page at once, and a newer one once the API answers', async () => {
    const newer = { _id: 'w3', userId: { username: 'cai' }, pot: 7, createdAt: '2026-03-06T12:00:00.000Z' };
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    fakeApi({
      'GET /api/winners': async () => {
        await answered;
        return json(200, { winners: [newer, ...winners], nextCursor: null });
      },
    });
    const data = document.createElement('script');
    data.type = 'application/json';
    data.id = 'omc-winners';
    data.dataset.readAt = String(Date.now() - 1000);
    data.textContent = JSON.stringify({ winners, nextCursor: null });
    document.body.append(data);
    renderApp('/winners');
    // The page's first render (once its lazy chunk is in) has the drawn rows while the API has not answered.
    const rows = await screen.findAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(within(rows[1]!).getAllByRole('cell')[0]).toHaveTextContent('bea');
    expect(screen.queryByText('Cargando…')).toBeNull();
    // Read once: the data block is gone.
    expect(document.getElementById('omc-winners')).toBeNull();
    answer();
    expect(await screen.findByRole('cell', { name: 'cai' })).toBeInTheDocument();
    expect(screen.getAllByRole('row')).toHaveLength(4);
    // The hint that lets the gateway write the next visit's dates in this time zone.
    expect(document.cookie).toContain(`omc_tz=${Intl.DateTimeFormat().resolvedOptions().timeZone}`);
  });

  it('says there are no winners when the list is empty', async () => {
    fakeApi();
    renderApp('/winners');
    expect(await screen.findByText(/Todavía no hay ganadores/)).toBeInTheDocument();
  });

  it('shows the fetch error of SPEC section 8', async () => {
    fakeApi({ 'GET /api/winners': () => json(500, { message: 'boom' }) });
    renderApp('/winners');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Error interno al obtener la lista de ganadores.',
    );
  });

  it('random mode shows one winner and changes it every 5 s with a 300 ms fade', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    fakeApi({ 'GET /api/winners': () => json(200, { winners, nextCursor: null }) });
    renderApp('/winners');
    await screen.findAllByRole('row');
    act(() => screen.getByRole('button', { name: 'Ganador al azar' }).click());
    const card = document.querySelector('.winner-card')!;
    const first = card.querySelector('h2')!.textContent;
    await act(() => vi.advanceTimersByTimeAsync(ROTATION_MS));
    expect(card).toHaveClass('winner-card--fading');
    await act(() => vi.advanceTimersByTimeAsync(FADE_MS));
    expect(card).not.toHaveClass('winner-card--fading');
    expect(card.querySelector('h2')!.textContent).not.toBe(first);
  });
});
