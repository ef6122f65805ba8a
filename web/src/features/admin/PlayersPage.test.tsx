import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, makeToken, profile, storeSession } from '../../test/fakeApi';
import { renderApp } from '../../test/render';

const inFifteenMinutes = () => Math.floor(Date.now() / 1000) + 900;
const BEA = {
  id: '1b0f6a52-3f43-4a43-9c43-6f1c1d1e1f10',
  username: 'bea',
  email: 'bea@example.com',
  role: 'standard',
  verified: true,
  suspended: false,
  suspendedReason: null,
  suspendedAt: null,
  createdAt: '2026-11-01T10:00:00.000Z',
};
const CARL = {
  ...BEA,
  id: '2b0f6a52-3f43-4a43-9c43-6f1c1d1e1f10',
  username: 'carl',
  email: 'carl@example.com',
};

describe('players (admin)', () => {
  it('searches, pages on, suspends a player with a reason and shows it in the list and the audit trail', async () => {
    storeSession(makeToken({ role: 'admin', exp: inFifteenMinutes() }), { role: 'admin' });
    let suspended = false;
    const api = fakeApi({
      'GET /api/user/profile': () => json(200, profile({ role: 'admin', adminBalance: 0 })),
      'GET /api/admin/users': () => {
        const url = String(api.fetchMock.mock.calls.at(-1)![0]);
        const params = new URL(url, 'http://localhost').searchParams;
        if (params.get('cursor') === 'next') return json(200, { users: [CARL], nextCursor: null });
        return json(200, {
          users: [suspended ? { ...BEA, suspended: true, suspendedReason: 'Click farm' } : BEA],
          nextCursor: 'next',
        });
      },
      'POST /api/admin/users/:id/suspend': (call) => {
        suspended = true;
        return json(200, {
          message: 'Account suspended',
          user: { ...BEA, suspended: true, suspendedReason: (call.body as { reason: string }).reason },
        });
      },
      'GET /api/admin/audit': () =>
        json(200, {
          entries: suspended
            ? [
                {
                  id: '7',
                  at: '2026-11-25T21:00:00.000Z',
                  action: 'user.suspended',
                  actor: { id: null, label: 'ana' },
                  target: { id: BEA.id, label: 'bea' },
                  detail: { reason: 'Click farm' },
                  ip: '198.51.100.7',
                },
              ]
            : [],
          nextCursor: null,
        }),
    });
    const user = userEvent.setup();
    renderApp('/admin/players');
    await screen.findByRole('heading', { name: 'Jugadores' });
    await user.type(screen.getByLabelText('Usuario, o correo con @'), 'b');
    await user.click(screen.getByRole('button', { name: 'Buscar' }));
    expect(await screen.findByRole('rowheader', { name: 'bea' })).toBeInTheDocument();
    const searched = api.calls.filter((c) => c.path === '/api/admin/users');
    expect(String(api.fetchMock.mock.calls.find((c) => String(c[0]).includes('query=b'))?.[0])).toContain(
      'limit=25',
    );
    expect(searched.length).toBeGreaterThan(0);

    await user.click(screen.getByRole('button', { name: 'Ver más' }));
    expect(await screen.findByRole('rowheader', { name: 'carl' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Gestionar a bea' }));
    await user.click(screen.getByRole('button', { name: 'Suspender' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Escribe un motivo de al menos 3 caracteres.');
    await user.type(screen.getByLabelText('Motivo de la suspensión (el jugador lo verá)'), 'Click farm');
    await user.click(screen.getByRole('button', { name: 'Suspender' }));
    expect(await screen.findByText('Cuenta suspendida; sus sesiones han terminado.')).toBeInTheDocument();
    expect(api.callsTo('POST', `/api/admin/users/${BEA.id}/suspend`)[0]!.body).toEqual({
      reason: 'Click farm',
    });
    const row = (await screen.findByText('Suspendido: Click farm')).closest('tr')!;
    expect(within(row).getByRole('rowheader')).toHaveTextContent('bea');
    expect(await screen.findByText('Suspendida')).toBeInTheDocument();
  });

  it('shows the server refusal when the action is refused', async () => {
    storeSession(makeToken({ role: 'admin', exp: inFifteenMinutes() }), { role: 'admin' });
    fakeApi({
      'GET /api/user/profile': () => json(200, profile({ role: 'admin', adminBalance: 0 })),
      'GET /api/admin/users': () => json(200, { users: [BEA], nextCursor: null }),
      'GET /api/admin/audit': () => json(200, { entries: [], nextCursor: null }),
      'POST /api/admin/users/:id/suspend': () =>
        json(409, { message: 'Admins cannot be suspended', error: 'Admins cannot be suspended', msg: 'x' }),
    });
    const user = userEvent.setup();
    renderApp('/admin/players');
    await user.click(await screen.findByRole('button', { name: 'Gestionar a bea' }));
    await user.type(screen.getByLabelText('Motivo de la suspensión (el jugador lo verá)'), 'Because');
    await user.click(screen.getByRole('button', { name: 'Suspender' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Admins cannot be suspended');
  });

  it("shows each player's clicks and money, and a dash where a service did not answer", async () => {
    storeSession(makeToken({ role: 'admin', exp: inFifteenMinutes() }), { role: 'admin' });
    fakeApi({
      'GET /api/user/profile': () => json(200, profile({ role: 'admin', adminBalance: 0 })),
      'GET /api/admin/users': () =>
        json(200, {
          users: [
            {
              ...BEA,
              balances: {
                freeClicks: 1234,
                hasInfiniteClicks: false,
                potEarned: 12.5,
                spent: 4.97,
                paidOut: 0,
              },
            },
            {
              ...CARL,
              balances: {
                freeClicks: null,
                hasInfiniteClicks: null,
                potEarned: null,
                spent: null,
                paidOut: null,
              },
            },
          ],
          nextCursor: null,
        }),
      'GET /api/admin/audit': () => json(200, { entries: [], nextCursor: null }),
    });
    renderApp('/admin/players');
    const bea = (await screen.findByRole('rowheader', { name: 'bea' })).closest('tr')!;
    expect(screen.getByRole('columnheader', { name: 'Clics' })).toBeInTheDocument();
    expect(within(bea).getByText('1234')).toBeInTheDocument();
    expect(within(bea).getByText('Premios por cobrar').nextElementSibling).toHaveTextContent('12,50');
    expect(within(bea).getByText('Gastado').nextElementSibling).toHaveTextContent('4,97');
    const carl = screen.getByRole('rowheader', { name: 'carl' }).closest('tr')!;
    expect(within(carl).getAllByText('–').length).toBeGreaterThanOrEqual(2);
  });
});
