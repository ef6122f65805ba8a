import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, makeToken, profile, storeSession } from '../../test/fakeApi';
import { renderApp } from '../../test/render';

const inFifteenMinutes = () => Math.floor(Date.now() / 1000) + 900;
/** A refusal as auth sends it: the code of its status (contracts' error list), the field when there is one. */
const CODE_OF: Record<number, string> = { 400: 'BAD_REQUEST', 403: 'FORBIDDEN', 409: 'CONFLICT' };
const tokenError = (status: number, field?: string) =>
  json(status, {
    message: 'refused',
    error: 'refused',
    msg: 'refused',
    code: CODE_OF[status],
    ...(field ? { field } : {}),
  });

describe('email change', () => {
  it('asks for the change, says to check the new inbox, and the profile shows the pending address', async () => {
    storeSession(makeToken({ exp: inFifteenMinutes() }));
    let pending: string | null = null;
    const api = fakeApi({
      'GET /api/user/profile': () => json(200, profile({ emailVerified: true, pendingEmail: pending })),
      'PUT /api/user/change-email': () => {
        pending = 'nueva@example.com';
        return json(200, { message: 'Check your new inbox' });
      },
    });
    const user = userEvent.setup();
    renderApp('/profile');
    await user.click(await screen.findByRole('button', { name: 'Cambiar correo' }));
    await user.type(screen.getByLabelText('Nuevo correo electrónico'), 'nueva@example.com');
    await user.click(screen.getByRole('button', { name: 'Guardar' }));
    expect(
      await screen.findByText(/Revisa tu nuevo buzón: abre el enlace que enviamos a nueva@example.com/),
    ).toBeVisible();
    expect(api.callsTo('PUT', '/api/user/change-email')[0]!.body).toEqual({ email: 'nueva@example.com' });
    await waitFor(() => expect(screen.getByTestId('pending-email')).toHaveTextContent('nueva@example.com'));
  });

  it('confirms the new address from the link once, and says so', async () => {
    const api = fakeApi({ 'POST /api/user/confirm-email': () => json(200, { message: 'Email changed' }) });
    renderApp('/confirm-email?token=abc');
    expect(await screen.findByText(/Correo cambiado y verificado/)).toHaveAttribute('role', 'status');
    expect(api.callsTo('POST', '/api/user/confirm-email')).toHaveLength(1);
    expect(api.callsTo('POST', '/api/user/confirm-email')[0]!.body).toEqual({ token: 'abc' });
  });

  it.each([
    [400, 'token', /Este enlace no es válido, ya se usó, fue sustituido/],
    [409, 'email', /Esa dirección ya pertenece a otra cuenta/],
    [403, undefined, /Este enlace pertenece a otra cuenta/],
  ] as const)('explains a refused confirm link (%s)', async (status, field, text) => {
    fakeApi({ 'POST /api/user/confirm-email': () => tokenError(status, field) });
    renderApp('/confirm-email?token=used');
    expect(await screen.findByText(text)).toHaveAttribute('role', 'alert');
  });

  it('undoes only when asked, then says every session ended', async () => {
    const api = fakeApi({ 'POST /api/user/undo-email-change': () => json(200, { message: 'undone' }) });
    const user = userEvent.setup();
    renderApp('/undo-email-change?token=undo-me');
    const button = await screen.findByRole('button', { name: 'Deshacer el cambio' });
    expect(api.callsTo('POST', '/api/user/undo-email-change')).toHaveLength(0);
    await user.click(button);
    expect(
      await screen.findByText(/Cambio deshecho: tu cuenta vuelve a usar su dirección anterior/),
    ).toHaveAttribute('role', 'status');
    expect(api.callsTo('POST', '/api/user/undo-email-change')[0]!.body).toEqual({ token: 'undo-me' });
    expect(screen.queryByRole('button', { name: 'Deshacer el cambio' })).not.toBeInTheDocument();
  });

  it('explains a refused undo link, and a missing one', async () => {
    fakeApi({ 'POST /api/user/undo-email-change': () => tokenError(400, 'token') });
    const user = userEvent.setup();
    renderApp('/undo-email-change?token=old');
    await user.click(await screen.findByRole('button', { name: 'Deshacer el cambio' }));
    expect(await screen.findByText(/Este enlace no es válido, ya se usó o ha caducado/)).toHaveAttribute(
      'role',
      'alert',
    );
  });
});
