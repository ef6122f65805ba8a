import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, makeToken } from '../../test/fakeApi';
import { renderApp } from '../../test/render';

async function openRegister() {
  const user = userEvent.setup();
  renderApp('/');
  await user.click(screen.getByRole('button', { name: 'Registrarse' }));
  const dialog = screen.getByRole('dialog', { name: 'Crea tu cuenta' });
  return { user, dialog };
}

async function fill(
  user: ReturnType<typeof userEvent.setup>,
  values: Partial<Record<'username' | 'email' | 'password' | 'confirm', string>>,
) {
  const fields = {
    username: screen.getByLabelText('Nombre de usuario'),
    email: screen.getByLabelText('Correo electrónico'),
    password: screen.getByLabelText('Contraseña'),
    confirm: screen.getByLabelText('Confirmar contraseña'),
  };
  for (const [name, value] of Object.entries(values))
    fireEvent.change(fields[name as keyof typeof fields], { target: { value } });
  void user;
}

describe('registration', () => {
  it('shows only the first failing rule, in the order of SPEC section 5, and calls nothing until all pass', async () => {
    const api = fakeApi();
    const { user } = await openRegister();
    const alert = () => screen.getByRole('alert');
    const submitButton = () =>
      screen
        .getAllByRole('button', { name: 'Registrarse' })
        .find((b) => b.getAttribute('type') === 'submit')!;

    // Every rule broken at once: the required rule wins.
    await fill(user, { username: 'ab', email: 'not an email', password: '123' });
    await user.click(submitButton());
    expect(alert()).toHaveTextContent('Todos los campos son obligatorios.');

    await fill(user, { confirm: '1234' });
    await user.click(submitButton());
    expect(alert()).toHaveTextContent('Las contraseñas no coinciden.');

    await fill(user, { confirm: '123' });
    await user.click(submitButton());
    expect(alert()).toHaveTextContent('La contraseña debe tener al menos 6 caracteres.');

    await fill(user, { password: 'secret1', confirm: 'secret1' });
    await user.click(submitButton());
    expect(alert()).toHaveTextContent('Introduce un correo electrónico válido y sin espacios.');

    await fill(user, { email: 'ana@example.com' });
    await user.click(submitButton());
    expect(alert()).toHaveTextContent('El nombre de usuario debe tener al menos 3 caracteres.');

    expect(api.callsTo('POST', '/api/user/register')).toHaveLength(0);
  });

  it('registers, stores the session and goes to the game', async () => {
    const token = makeToken({ username: 'ana', exp: Math.floor(Date.now() / 1000) + 900 });
    const api = fakeApi({ 'POST /api/user/register': () => json(201, { token, message: 'ok' }) });
    const { user } = await openRegister();
    await fill(user, { username: 'ana', email: 'ana@example.com', password: 'secret1', confirm: 'secret1' });
    await user.click(
      screen
        .getAllByRole('button', { name: 'Registrarse' })
        .find((b) => b.getAttribute('type') === 'submit')!,
    );
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/game'));
    expect(api.callsTo('POST', '/api/user/register')[0]).toMatchObject({
      body: { username: 'ana', email: 'ana@example.com', password: 'secret1', preferredLanguage: 'es' },
      credentials: 'include',
    });
    expect(window.localStorage.getItem('token')).toBe(token);
    expect(await screen.findByText('Tu cuenta está lista. ¡A clicar!')).toBeInTheDocument();
  });

  it("shows the server's message, else the generic one", async () => {
    fakeApi({
      'POST /api/user/register': () => json(409, { message: 'Ese nombre ya existe', requestId: 'r1' }),
    });
    const { user } = await openRegister();
    await fill(user, { username: 'ana', email: 'ana@example.com', password: 'secret1', confirm: 'secret1' });
    await user.click(
      screen
        .getAllByRole('button', { name: 'Registrarse' })
        .find((b) => b.getAttribute('type') === 'submit')!,
    );
    expect(await screen.findByRole('alert')).toHaveTextContent('Ese nombre ya existe');
  });

  it('cancel closes the dialog and clears the form', async () => {
    fakeApi();
    const { user } = await openRegister();
    await fill(user, { username: 'ana' });
    await user.click(screen.getByRole('button', { name: 'Cancelar' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Registrarse' }));
    expect(screen.getByLabelText('Nombre de usuario')).toHaveValue('');
  });
});

describe('login errors (SPEC section 8)', () => {
  it('tells no answer, a non-JSON answer and a refusal apart', async () => {
    const { ApiClientError } = await import('../../api/http');
    const { loginErrorKey } = await import('./LoginDialog');
    expect(loginErrorKey(new ApiClientError(0, undefined))).toEqual({ key: 'common.errorGeneric' });
    expect(loginErrorKey(new ApiClientError(502, undefined, { json: false }))).toEqual({
      key: 'login.errorGeneric',
    });
    expect(loginErrorKey(new ApiClientError(401, 'Usuario bloqueado', { json: true }))).toEqual({
      text: 'Usuario bloqueado',
      key: '',
    });
    expect(loginErrorKey(new ApiClientError(401, undefined, { json: true }))).toEqual({
      key: 'login.invalidCredentials',
    });
  });
});
