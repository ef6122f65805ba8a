import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, makeToken, profile, storeSession } from '../../test/fakeApi';
import { renderApp } from '../../test/render';

const inFifteenMinutes = () => Math.floor(Date.now() / 1000) + 900;

describe('profile', () => {
  it('shows the role labels, and admins get roles management and the admin pot', async () => {
    storeSession(makeToken({ role: 'admin', exp: inFifteenMinutes() }), { role: 'admin' });
    fakeApi({ 'GET /api/user/profile': () => json(200, profile({ role: 'admin', adminBalance: 7.5 })) });
    renderApp('/profile');
    expect(await screen.findByTestId('admin-balance')).toHaveTextContent('7,50 €');
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('anaAdministrador');
    expect(screen.getByTestId('profile-role')).toHaveTextContent('Administrador');
    expect(screen.getByRole('button', { name: 'Gestionar roles' })).toBeInTheDocument();
  });

  it('an admin whose email is not verified is told to verify it before collecting the house pot', async () => {
    storeSession(makeToken({ role: 'admin', exp: inFifteenMinutes() }), { role: 'admin' });
    const api = fakeApi({
      'GET /api/user/profile': () =>
        json(
          200,
          profile({
            role: 'admin',
            adminBalance: 7.5,
            paypalEmail: 'house@paypal.test',
            emailVerified: false,
          }),
        ),
    });
    const user = userEvent.setup();
    renderApp('/profile');
    await user.click(await screen.findByRole('button', { name: 'Cobrar' }));
    const dialog = screen.getByRole('dialog', { name: 'Cobrar el bote de administrador' });
    expect(dialog).toHaveTextContent('Verifica tu correo ana@example.com antes de cobrar');
    expect(within(dialog).getByRole('button', { name: 'Confirmar' })).toBeDisabled();
    expect(within(dialog).getByRole('button', { name: 'Reenviar el enlace' })).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/admin/collect')).toHaveLength(0);
  });

  it('a standard user sees neither roles management nor the admin pot, and "Ninguno" without an email', async () => {
    storeSession(makeToken({ exp: inFifteenMinutes() }));
    fakeApi({ 'GET /api/user/profile': () => json(200, profile({ email: null })) });
    renderApp('/profile');
    expect(await screen.findByText('Ninguno')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Gestionar roles' })).not.toBeInTheDocument();
    expect(screen.queryByTestId('admin-balance')).not.toBeInTheDocument();
  });

  it('change email sends the current password when given, and only the email when not', async () => {
    storeSession(makeToken({ exp: inFifteenMinutes() }));
    const api = fakeApi({ 'PUT /api/user/change-email': () => json(200, { message: 'ok' }) });
    const user = userEvent.setup();
    renderApp('/profile');
    await user.click(screen.getByRole('button', { name: 'Cambiar correo' }));
    const dialog = screen.getByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText('Nuevo correo electrónico'), {
      target: { value: 'new@example.com' },
    });
    fireEvent.change(within(dialog).getByLabelText(/Contraseña actual/), { target: { value: 'my-secret' } });
    await user.click(within(dialog).getByRole('button', { name: 'Guardar' }));
    await waitFor(() => expect(api.callsTo('PUT', '/api/user/change-email')).toHaveLength(1));
    expect(api.callsTo('PUT', '/api/user/change-email')[0]!.body).toEqual({
      email: 'new@example.com',
      currentPassword: 'my-secret',
    });
  });

  it('change password checks its rules in order, then shows success and closes after 1 s', async () => {
    storeSession(makeToken({ exp: inFifteenMinutes() }));
    const successor = makeToken({ exp: inFifteenMinutes(), sv: 1 });
    const api = fakeApi({
      'PUT /api/user/change-password': () => json(200, { message: 'ok', token: successor }),
    });
    const user = userEvent.setup();
    renderApp('/profile');
    await user.click(screen.getByRole('button', { name: 'Cambiar contraseña' }));
    const dialog = screen.getByRole('dialog', { name: 'Cambiar contraseña' });
    const set = (label: string, value: string) =>
      fireEvent.change(screen.getByLabelText(label), { target: { value } });
    const save = () => user.click(screen.getByRole('button', { name: 'Guardar' }));

    await save();
    expect(screen.getByRole('alert')).toHaveTextContent('Todos los campos son obligatorios.');
    set('Contraseña actual', 'old-secret');
    set('Nueva contraseña', 'abc');
    set('Confirma la nueva contraseña', 'abd');
    await save();
    expect(screen.getByRole('alert')).toHaveTextContent('Las contraseñas no coinciden.');
    set('Confirma la nueva contraseña', 'abc');
    await save();
    expect(screen.getByRole('alert')).toHaveTextContent(
      'La nueva contraseña debe tener al menos 6 caracteres.',
    );
    expect(api.callsTo('PUT', '/api/user/change-password')).toHaveLength(0);

    set('Nueva contraseña', 'new-secret');
    set('Confirma la nueva contraseña', 'new-secret');
    await save();
    expect(await screen.findByText('Contraseña actualizada.')).toHaveAttribute('role', 'status');
    expect(api.callsTo('PUT', '/api/user/change-password')[0]!.body).toEqual({
      currentPassword: 'old-secret',
      newPassword: 'new-secret',
    });
    // Every earlier token ended with the change: the session carries on with the answer's.
    expect(window.localStorage.getItem('token')).toBe(successor);
    expect(dialog).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument(), { timeout: 2000 });
  });

  it('deleting the account asks first, then signs out', async () => {
    storeSession(makeToken({ exp: inFifteenMinutes() }));
    const api = fakeApi({ 'DELETE /api/user/delete-account': () => json(200, { message: 'deleted' }) });
    const user = userEvent.setup();
    renderApp('/profile');
    await user.click(screen.getByRole('button', { name: 'Eliminar cuenta' }));
    expect(api.callsTo('DELETE', '/api/user/delete-account')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Eliminar mi cuenta' }));
    await waitFor(() => expect(window.localStorage.getItem('token')).toBeNull());
    expect(api.callsTo('DELETE', '/api/user/delete-account')).toHaveLength(1);
  });
});

describe('role manager', () => {
  it("defaults the choice to the user's role, saves, and returns to the profile after 1 s", async () => {
    storeSession(makeToken({ role: 'admin', exp: inFifteenMinutes() }), { role: 'admin' });
    const api = fakeApi({
      'GET /api/user/profile': () => json(200, profile({ role: 'admin', adminBalance: 0 })),
      'GET /api/admin/users': () =>
        json(200, {
          users: [
            { username: 'ana', email: 'ana@example.com', role: 'admin' },
            { username: 'bea', email: 'bea@example.com', role: 'superuser' },
          ],
        }),
      'POST /api/admin/updateRole': () => json(200, { message: 'Rol actualizado' }),
      'GET /api/admin/approvals': () => json(200, { approvals: [] }),
    });
    const user = userEvent.setup();
    renderApp('/admin/roles');
    const select = await screen.findByLabelText('Usuario');
    await screen.findByRole('option', { name: 'bea (bea@example.com) · Superusuario' });
    await user.click(screen.getByRole('button', { name: 'Guardar' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Elige un usuario y un rol.');

    await user.selectOptions(select, 'bea@example.com');
    expect(screen.getByLabelText('Superusuario')).toBeChecked();
    await user.click(screen.getByLabelText('Estándar'));
    await user.click(screen.getByRole('button', { name: 'Guardar' }));
    expect(await screen.findByText('Rol actualizado.')).toHaveAttribute('role', 'status');
    expect(api.callsTo('POST', '/api/admin/updateRole')[0]!.body).toEqual({
      email: 'bea@example.com',
      role: 'standard',
    });
    expect(screen.getByTestId('location')).toHaveTextContent('/admin/roles');
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/profile'), {
      timeout: 2000,
    });
  });

  it('a grant of admin asks for the password and waits; another admin approves a pending request', async () => {
    storeSession(makeToken({ role: 'admin', exp: inFifteenMinutes() }), { role: 'admin', username: 'ana' });
    const pending = {
      id: '6f1c3a8e-0c4e-4b8e-9d4a-2f7b9a1c0d11',
      kind: 'role',
      status: 'pending',
      requestedBy: { id: '5e0c3a8e-0c4e-4b8e-9d4a-2f7b9a1c0d11', username: 'carla' },
      target: { id: '4d0c3a8e-0c4e-4b8e-9d4a-2f7b9a1c0d11', username: 'dani' },
      role: 'superuser',
      createdAt: '2026-01-01T10:00:00.000Z',
      expiresAt: '2026-01-02T10:00:00.000Z',
      decidedBy: null,
      decidedAt: null,
      outcome: null,
    };
    const api = fakeApi({
      'GET /api/user/profile': () => json(200, profile({ role: 'admin', adminBalance: 0 })),
      'GET /api/admin/users': () =>
        json(200, { users: [{ username: 'bea', email: 'bea@example.com', role: 'standard' }] }),
      'POST /api/admin/updateRole': () =>
        json(202, { message: 'Waiting for a second admin', approval: { ...pending, id: pending.target.id } }),
      'GET /api/admin/approvals': () => json(200, { approvals: [pending] }),
      'POST /api/admin/approvals/:id/approve': () =>
        json(200, { message: 'Approved: role updated', approval: { ...pending, status: 'approved' } }),
    });
    const user = userEvent.setup();
    renderApp('/admin/roles');
    const select = await screen.findByLabelText('Usuario');
    await screen.findByRole('option', { name: 'bea (bea@example.com) · Estándar' });
    await user.selectOptions(select, 'bea@example.com');
    await user.click(screen.getByLabelText('Administrador'));
    await user.type(screen.getByLabelText(/^Tu contraseña \(/), 'my-password');
    await user.click(screen.getByRole('button', { name: 'Guardar' }));
    expect(await screen.findByText(/otro administrador debe aprobarla/)).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/admin/updateRole')[0]!.body).toEqual({
      email: 'bea@example.com',
      role: 'admin',
      currentPassword: 'my-password',
    });
    expect(screen.getByTestId('location')).toHaveTextContent('/admin/roles');

    expect(await screen.findByText('carla pide dar el rol Superusuario a dani.')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Tu contraseña'), 'approver-password');
    await user.click(screen.getByRole('button', { name: 'Aprobar' }));
    expect(await screen.findByText('Solicitud aprobada.')).toBeInTheDocument();
    expect(api.callsTo('POST', `/api/admin/approvals/${pending.id}/approve`)[0]!.body).toEqual({
      currentPassword: 'approver-password',
    });
  });
});
