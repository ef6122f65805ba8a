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
const PURCHASE = {
  id: '3c0f6a52-3f43-4a43-9c43-6f1c1d1e1f10',
  packId: 'clicks500',
  amount: 1.99,
  clicks: 500,
  status: 'succeeded',
  transactionId: 'bt_tx_1',
  settlementStatus: null,
  disputeStatus: null,
  refund: null,
  createdAt: '2026-11-20T10:00:00.000Z',
};
const REFUND = {
  purchaseId: PURCHASE.id,
  status: 'completed',
  kind: 'void',
  providerRefundId: 'bt_tx_1',
  amount: 1.99,
  reason: 'Bought by mistake',
  clicksTakenBack: 480,
  passTakenBack: false,
  potTakenBack: 0.99,
  houseTakenBack: 1,
  operatorLoss: 0,
  createdAt: '2026-11-25T10:00:00.000Z',
  completedAt: '2026-11-25T10:00:01.000Z',
};

/** The admin opens bea's purchases and payouts from the players list. */
async function openBeasMoney() {
  const user = userEvent.setup();
  renderApp('/admin/players');
  await screen.findByRole('heading', { name: 'Jugadores' });
  await user.type(screen.getByLabelText('Usuario, o correo con @'), 'b');
  await user.click(screen.getByRole('button', { name: 'Buscar' }));
  await user.click(await screen.findByRole('link', { name: 'Compras y pagos de bea' }));
  return user;
}

describe("a player's purchases and payouts (admin)", () => {
  it('opens from the players list, shows provider ids, and refunds a purchase with a reason', async () => {
    storeSession(makeToken({ role: 'admin', exp: inFifteenMinutes() }), { role: 'admin' });
    let refunded = false;
    const api = fakeApi({
      'GET /api/user/profile': () => json(200, profile({ role: 'admin', adminBalance: 0 })),
      'GET /api/admin/users': () => json(200, { users: [BEA], nextCursor: null }),
      'GET /api/admin/purchases': () =>
        json(200, {
          purchases: [refunded ? { ...PURCHASE, status: 'voided', refund: REFUND } : PURCHASE],
          nextCursor: null,
        }),
      'GET /api/admin/payouts': () =>
        json(200, {
          payouts: [
            {
              id: '4d0f6a52-3f43-4a43-9c43-6f1c1d1e1f10',
              kind: 'winnings',
              amount: 12.5,
              status: 'completed',
              paypalEmail: 'bea@example.com',
              batchId: 'PAYPAL-BATCH-1',
              senderBatchId: '4d0f6a52-3f43-4a43-9c43-6f1c1d1e1f10',
              error: null,
              createdAt: '2026-11-21T10:00:00.000Z',
              completedAt: '2026-11-21T10:00:02.000Z',
            },
          ],
          nextCursor: null,
        }),
      'POST /api/admin/purchases/:id/refund': (call) => {
        refunded = true;
        expect(call.body).toEqual({ reason: 'Bought by mistake' });
        return json(200, { message: 'Purchase voided', refund: REFUND });
      },
    });
    const user = await openBeasMoney();
    expect(
      await screen.findByRole('heading', { name: 'Compras y pagos de bea', level: 1 }),
    ).toBeInTheDocument();
    const purchases = await screen.findByRole('table', { name: 'Compras, las más recientes primero' });
    expect(await within(purchases).findByText('bt_tx_1')).toBeInTheDocument();
    const payouts = screen.getByRole('table', { name: 'Pagos, los más recientes primero' });
    expect(await within(payouts).findByText('PAYPAL-BATCH-1')).toBeInTheDocument();
    expect(
      String(api.fetchMock.mock.calls.find((c) => String(c[0]).includes('/api/admin/purchases'))?.[0]),
    ).toContain(`userId=${BEA.id}`);

    await user.click(within(purchases).getByRole('button', { name: /Reembolsar/ }));
    await screen.findByRole('heading', { name: /Reembolsar la compra de/ });
    await user.click(screen.getByRole('button', { name: 'Reembolsar' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('al menos 3 caracteres');
    await user.type(screen.getByLabelText('Motivo (queda en el registro de auditoría)'), 'Bought by mistake');
    await user.click(screen.getByRole('button', { name: 'Reembolsar' }));
    expect(await screen.findByText(/anulados; 480 clics retirados/)).toHaveAttribute('role', 'status');
    expect(await within(purchases).findByText('Anulada')).toBeInTheDocument();
  });

  it('shows "refund in progress" until every step of the refund is done, with no refund button', async () => {
    storeSession(makeToken({ role: 'admin', exp: inFifteenMinutes() }), { role: 'admin' });
    fakeApi({
      'GET /api/user/profile': () => json(200, profile({ role: 'admin', adminBalance: 0 })),
      'GET /api/admin/users': () => json(200, { users: [BEA], nextCursor: null }),
      'GET /api/admin/purchases': () =>
        json(200, {
          purchases: [
            {
              ...PURCHASE,
              status: 'refund_in_progress',
              refund: { ...REFUND, status: 'returned', clicksTakenBack: 0, completedAt: null },
            },
          ],
          nextCursor: null,
        }),
      'GET /api/admin/payouts': () => json(200, { payouts: [], nextCursor: null }),
    });
    await openBeasMoney();
    const purchases = await screen.findByRole('table', { name: 'Compras, las más recientes primero' });
    expect(await within(purchases).findByText('Reembolso en curso')).toBeInTheDocument();
    expect(within(purchases).getByText(/Reembolso en curso: dinero devuelto/)).toBeInTheDocument();
    expect(within(purchases).queryByRole('button', { name: /Reembolsar/ })).toBeNull();
  });
});
