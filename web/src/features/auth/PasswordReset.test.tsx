import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json } from '../../test/fakeApi';
import { renderApp } from '../../test/render';

const SENT_BODY = { message: 'If an account uses this address, a link is on its way.' };

async function openForgot() {
  const user = userEvent.setup();
  renderApp('/');
  await user.click(screen.getByRole('button', { name: 'Iniciar sesión' }));
  await user.click(screen.getByRole('button', { name: 'He olvidado mi contraseña' }));
  const dialog = screen.getByRole('dialog', { name: 'Restablecer la contraseña' });
  return { user, dialog };
}

describe('forgot password', () => {
  it('opens from the login dialog with the email field focused, sends the address and says the same for any', async () => {
    const api = fakeApi({ 'POST /api/user/forgot-password': () => json(202, SENT_BODY) });
    const { user } = await openForgot();
    const field = screen.getByLabelText('Correo electrónico');
    await waitFor(() => expect(field).toHaveFocus());
    await user.click(screen.getByRole('button', { name: 'Enviar el enlace' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Introduce un correo electrónico válido');
    expect(api.callsTo('POST', '/api/user/forgot-password')).toHaveLength(0);

    fireEvent.change(field, { target: { value: ' ana@example.com ' } });
    await user.click(screen.getByRole('button', { name: 'Enviar el enlace' }));
    expect(await screen.findByText(/Si alguna cuenta usa este correo/)).toHaveAttribute('role', 'status');
    expect(api.callsTo('POST', '/api/user/forgot-password')[0]!.body).toEqual({ email: 'ana@example.com' });
  });

  it('says when there were too many requests, and goes back to log in', async () => {
    fakeApi({
      'POST /api/user/forgot-password': () =>
        json(429, { message: 'Too many', error: 'Too many', msg: 'Too many', code: 'RATE_LIMITED' }),
    });
    const { user } = await openForgot();
    fireEvent.change(screen.getByLabelText('Correo electrónico'), { target: { value: 'ana@example.com' } });
    await user.click(screen.getByRole('button', { name: 'Enviar el enlace' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Demasiadas solicitudes');
    await user.click(screen.getByRole('button', { name: 'Volver a iniciar sesión' }));
    expect(screen.getByRole('dialog', { name: 'Iniciar sesión' })).toBeInTheDocument();
  });
});

describe('reset password page', () => {
  const bad = { message: 'This password reset link was already used.', error: 'x', msg: 'x', field: 'token' };

  it('checks the new password, sends it with the link token, then offers to log in', async () => {
    const api = fakeApi({ 'POST /api/user/reset-password': () => json(200, { message: 'ok' }) });
    const user = userEvent.setup();
    renderApp('/reset-password?token=tok-123');
    // The page is a chunk of its own, loaded when opened.
    expect(await screen.findByRole('heading', { level: 1 })).toHaveTextContent('Elige una contraseña nueva');
    fireEvent.change(screen.getByLabelText('Contraseña nueva'), { target: { value: 'new-secret' } });
    fireEvent.change(screen.getByLabelText('Confirma la contraseña nueva'), { target: { value: 'other' } });
    await user.click(screen.getByRole('button', { name: 'Guardar la contraseña' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Las contraseñas no coinciden.');
    expect(api.callsTo('POST', '/api/user/reset-password')).toHaveLength(0);

    fireEvent.change(screen.getByLabelText('Confirma la contraseña nueva'), {
      target: { value: 'new-secret' },
    });
    await user.click(screen.getByRole('button', { name: 'Guardar la contraseña' }));
    expect(await screen.findByText(/Contraseña cambiada/)).toHaveAttribute('role', 'status');
    expect(api.callsTo('POST', '/api/user/reset-password')[0]!.body).toEqual({
      token: 'tok-123',
      newPassword: 'new-secret',
    });
    await user.click(screen.getByRole('button', { name: 'Iniciar sesión' }));
    expect(screen.getByRole('dialog', { name: 'Iniciar sesión' })).toBeInTheDocument();
  });

  it('explains a used or expired link in the player language', async () => {
    fakeApi({ 'POST /api/user/reset-password': () => json(400, bad) });
    const user = userEvent.setup();
    renderApp('/reset-password?token=used');
    fireEvent.change(await screen.findByLabelText('Contraseña nueva'), { target: { value: 'new-secret' } });
    fireEvent.change(screen.getByLabelText('Confirma la contraseña nueva'), {
      target: { value: 'new-secret' },
    });
    await user.click(screen.getByRole('button', { name: 'Guardar la contraseña' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Este enlace no es válido, ya se usó o ha caducado.',
    );
  });

  it('says the link is missing when the page has no token', async () => {
    fakeApi();
    renderApp('/reset-password');
    expect(await screen.findByRole('alert')).toHaveTextContent('Falta el enlace de restablecimiento.');
    expect(screen.getByRole('button', { name: 'Guardar la contraseña' })).toBeDisabled();
  });
});
