import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, makeToken, profile, storeSession } from '../../test/fakeApi';
import { renderApp } from '../../test/render';

const signIn = () => storeSession(makeToken({ exp: Math.floor(Date.now() / 1000) + 900 }));
const refused = (status: number, field: string, message: string) =>
  json(status, { message, error: message, msg: message, field });

describe('a new payout email', () => {
  it('asks for the password when the server wants it, then says to check the email; the address waits', async () => {
    signIn();
    let asked = 0;
    const api = fakeApi({
      'GET /api/user/profile': () => json(200, profile({ potEarned: 12.5, paypalEmail: null })),
      'POST /api/winners/setPaymentMethod': () =>
        ++asked === 1
          ? refused(400, 'currentPassword', 'currentPassword is required')
          : json(200, { message: 'Check your email' }),
    });
    const user = userEvent.setup();
    renderApp('/game');
    await user.click(await screen.findByRole('button', { name: 'Configurar' }));
    await user.type(await screen.findByLabelText('Correo de PayPal'), 'ana@paypal.test');
    expect(screen.queryByLabelText('Contraseña actual')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Guardar' }));
    expect(await screen.findByText(/escribe tu contraseña actual/)).toHaveAttribute('role', 'alert');
    await user.type(screen.getByLabelText('Contraseña actual'), 'secret-ana-1');
    await user.click(screen.getByRole('button', { name: 'Guardar' }));
    expect(await screen.findByText(/Revisa tu correo: .*ana@paypal\.test/)).toHaveAttribute('role', 'status');
    expect(api.callsTo('POST', '/api/winners/setPaymentMethod').map((c) => c.body)).toEqual([
      { paypalEmail: 'ana@paypal.test' },
      { paypalEmail: 'ana@paypal.test', currentPassword: 'secret-ana-1' },
    ]);
    // Not confirmed yet: no transfer is offered.
    await user.click(screen.getAllByRole('button', { name: 'Cerrar' }).at(-1)!);
    expect(screen.getByRole('button', { name: 'Configurar' })).toBeInTheDocument();
  });

  it('confirms the address from the mailed link once, without a session', async () => {
    const api = fakeApi({
      'POST /api/winners/confirm-payout-email': () => json(200, { message: 'PayPal email confirmed' }),
    });
    renderApp('/confirm-payout-email?token=abc');
    expect(await screen.findByText(/Correo de PayPal confirmado/)).toHaveAttribute('role', 'status');
    expect(api.callsTo('POST', '/api/winners/confirm-payout-email')).toHaveLength(1);
    expect(api.callsTo('POST', '/api/winners/confirm-payout-email')[0]!.body).toEqual({ token: 'abc' });
  });

  it('explains a refused link (used, expired or spent by a security change)', async () => {
    fakeApi({
      'POST /api/winners/confirm-payout-email': () =>
        refused(400, 'token', 'This confirmation link no longer works'),
    });
    renderApp('/confirm-payout-email?token=old');
    expect(await screen.findByText(/cambio de seguridad de la cuenta/)).toHaveAttribute('role', 'alert');
  });
});
