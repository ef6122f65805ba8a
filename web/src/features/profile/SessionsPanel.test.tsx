import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, json, makeToken, storeSession } from '../../test/fakeApi';
import { renderApp } from '../../test/render';

const now = new Date().toISOString();
const CURRENT = {
  id: '11111111-1111-4111-8111-111111111111',
  device: 'Firefox 128 on Linux',
  ip: '198.51.100.7',
  createdAt: now,
  lastUsedAt: now,
  current: true,
};
const PHONE = {
  id: '22222222-2222-4222-8222-222222222222',
  device: 'Mobile Safari 17 on iOS (iPhone)',
  ip: '203.0.113.9',
  createdAt: now,
  lastUsedAt: now,
  current: false,
};
const TABLET = {
  id: '33333333-3333-4333-8333-333333333333',
  device: 'Chrome 126 on Android',
  ip: null,
  createdAt: now,
  lastUsedAt: now,
  current: false,
};

describe('profile sessions', () => {
  it('lists the sessions, marks this device, and ends another one by its id', async () => {
    storeSession(makeToken({ exp: Math.floor(Date.now() / 1000) + 900 }));
    let sessions = [CURRENT, PHONE, TABLET];
    const api = fakeApi({
      'GET /api/user/sessions': () => json(200, { sessions }),
      'DELETE /api/user/sessions/:id': (call) => {
        sessions = sessions.filter((s) => !call.path.endsWith(s.id));
        return json(200, { message: 'Session ended' });
      },
    });
    const user = userEvent.setup();
    renderApp('/profile');
    const section = await screen.findByRole('region', { name: 'Sesiones abiertas' });
    await waitFor(() => expect(within(section).getAllByTestId('session')).toHaveLength(3));
    expect(within(section).getByText('Este dispositivo')).toBeInTheDocument();
    expect(within(section).getByText(/Desde 203\.0\.113\.9/)).toBeInTheDocument();
    expect(within(section).getByText(/Origen desconocido/)).toBeInTheDocument();
    // No button ends the current session from here; each other one has its own, named by device.
    expect(within(section).queryByRole('button', { name: /Firefox 128 on Linux/ })).not.toBeInTheDocument();
    await user.click(
      within(section).getByRole('button', { name: 'Cerrar la sesión de Mobile Safari 17 on iOS (iPhone)' }),
    );
    expect(await within(section).findByRole('status')).toHaveTextContent('Sesión cerrada.');
    expect(api.callsTo('DELETE', `/api/user/sessions/${PHONE.id}`)).toHaveLength(1);
    await waitFor(() => expect(within(section).getAllByTestId('session')).toHaveLength(2));
  });

  it('ends every other session at once, and carries on with the token the answer brings', async () => {
    storeSession(makeToken({ exp: Math.floor(Date.now() / 1000) + 900 }));
    const successor = makeToken({ exp: Math.floor(Date.now() / 1000) + 900, sv: 1 });
    let sessions = [CURRENT, PHONE, TABLET];
    const api = fakeApi({
      'GET /api/user/sessions': () => json(200, { sessions }),
      'DELETE /api/user/sessions': () => {
        sessions = [CURRENT];
        return json(200, { message: '2 other sessions ended', token: successor });
      },
    });
    const user = userEvent.setup();
    renderApp('/profile');
    await user.click(await screen.findByRole('button', { name: 'Cerrar todas las demás sesiones' }));
    expect(await screen.findByText('Se cerraron las demás sesiones.')).toBeInTheDocument();
    expect(api.callsTo('DELETE', '/api/user/sessions')).toHaveLength(1);
    expect(await screen.findByText('No hay otras sesiones abiertas.')).toBeInTheDocument();
    await waitFor(() => expect(window.localStorage.getItem('token')).toBe(successor));
  });
});
