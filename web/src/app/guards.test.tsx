import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, makeToken, storeSession } from '../test/fakeApi';
import { renderApp } from '../test/render';

const inFifteenMinutes = () => Math.floor(Date.now() / 1000) + 900;
const location = () => screen.getByTestId('location');

describe('route guards', () => {
  it('shows the welcome screen at / to an anonymous visitor', () => {
    fakeApi();
    renderApp('/');
    expect(location()).toHaveTextContent(/^\/$/);
    expect(screen.getByRole('heading', { name: 'Un Millón de Clics' })).toBeInTheDocument();
  });

  it('sends a signed-in user from / to the game', async () => {
    storeSession(makeToken({ exp: inFifteenMinutes() }));
    fakeApi();
    renderApp('/');
    await waitFor(() => expect(location()).toHaveTextContent('/game'));
  });

  it('sends an anonymous visitor from /game, /profile and /admin/roles to /', () => {
    for (const route of ['/game', '/profile', '/admin/roles']) {
      fakeApi();
      const { unmount } = renderApp(route);
      expect(location()).toHaveTextContent(/^\/$/);
      unmount();
    }
  });

  it('keeps /admin/roles for admins', async () => {
    storeSession(makeToken({ role: 'standard', exp: inFifteenMinutes() }), { role: 'standard' });
    fakeApi();
    const standard = renderApp('/admin/roles');
    // A standard user is sent to /, which sends a signed-in user on to the game.
    await waitFor(() => expect(location()).toHaveTextContent('/game'));
    standard.unmount();

    storeSession(makeToken({ role: 'admin', exp: inFifteenMinutes() }), { role: 'admin' });
    fakeApi({
      'GET /api/admin/users': async () =>
        new Response(JSON.stringify({ users: [] }), { headers: { 'content-type': 'application/json' } }),
    });
    renderApp('/admin/roles');
    expect(location()).toHaveTextContent('/admin/roles');
    expect(await screen.findByRole('heading', { name: 'Gestión de roles' })).toBeInTheDocument();
  });

  it('lets a signed-in user open /profile', () => {
    storeSession(makeToken({ exp: inFifteenMinutes() }));
    fakeApi();
    renderApp('/profile');
    expect(location()).toHaveTextContent('/profile');
  });

  it('redirects any other path to /', () => {
    fakeApi();
    renderApp('/no/such/page');
    expect(location()).toHaveTextContent(/^\/$/);
  });

  it('clears an expired session on /game and shows the welcome screen', async () => {
    storeSession(makeToken({ exp: Math.floor(Date.now() / 1000) - 60 }));
    fakeApi({ 'POST /api/user/refresh': () => new Response(null, { status: 401 }) });
    renderApp('/game');
    await waitFor(() => expect(window.localStorage.getItem('token')).toBeNull());
    await waitFor(() => expect(location()).toHaveTextContent(/^\/$/));
    expect(screen.getByRole('heading', { name: 'Un Millón de Clics' })).toBeInTheDocument();
  });

  it('lets a guest watch the game', async () => {
    fakeApi();
    renderApp('/');
    screen.getByRole('button', { name: 'Continuar como invitado' }).click();
    await waitFor(() => expect(location()).toHaveTextContent('/game'));
  });
});
