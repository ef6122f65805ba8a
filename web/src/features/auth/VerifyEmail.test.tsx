import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, makeToken, profile, storeSession } from '../../test/fakeApi';
import { renderApp } from '../../test/render';

const inFifteenMinutes = () => Math.floor(Date.now() / 1000) + 900;

describe('email verification', () => {
  it('verifies the address from the link once, and says so', async () => {
    const api = fakeApi({ 'POST /api/user/verify-email': () => json(200, { message: 'Email verified' }) });
    renderApp('/verify-email?token=signed.token');
    expect(await screen.findByText('Correo verificado. ¡Gracias!')).toHaveAttribute('role', 'status');
    expect(api.callsTo('POST', '/api/user/verify-email')).toHaveLength(1);
    expect(api.callsTo('POST', '/api/user/verify-email')[0]!.body).toEqual({ token: 'signed.token' });
  });

  it('explains a used, expired or forged link', async () => {
    fakeApi({
      'POST /api/user/verify-email': () =>
        json(400, { message: 'already used', error: 'already used', msg: 'already used', field: 'token' }),
    });
    renderApp('/verify-email?token=used');
    expect(await screen.findByText(/Este enlace no es válido, ya se usó o ha caducado/)).toHaveAttribute(
      'role',
      'alert',
    );
  });

  it('shows a banner until verified, with a resend that reports its outcome', async () => {
    storeSession(makeToken({ exp: inFifteenMinutes() }));
    const api = fakeApi({
      'GET /api/user/profile': () => json(200, profile({ emailVerified: false })),
      'POST /api/user/resend-verification': () => json(200, { message: 'ok' }),
    });
    const user = userEvent.setup();
    renderApp('/profile');
    const banner = await screen.findByRole('complementary');
    expect(banner).toHaveTextContent('Confirma tu correo ana@example.com');
    expect(screen.getByTestId('email-verified')).toHaveTextContent('Correo sin verificar');
    await user.click(screen.getByRole('button', { name: 'Reenviar el enlace' }));
    await waitFor(() => expect(banner).toHaveTextContent('Enlace enviado. Revisa tu correo.'));
    expect(api.callsTo('POST', '/api/user/resend-verification')).toHaveLength(1);
  });

  it('shows no banner once verified', async () => {
    storeSession(makeToken({ exp: inFifteenMinutes() }));
    fakeApi({ 'GET /api/user/profile': () => json(200, profile({ emailVerified: true })) });
    renderApp('/profile');
    expect(await screen.findByTestId('email-verified')).toHaveTextContent('Correo verificado');
    expect(screen.queryByRole('complementary')).not.toBeInTheDocument();
  });
});
