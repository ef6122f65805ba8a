import { act, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi, json, makeToken, storeSession } from '../test/fakeApi';
import { renderWithProviders } from '../test/render';
import { REFRESH_LEAD_MS, refreshDelay } from './token';
import { SessionMessage } from '../components/SessionMessage';
import { useSession } from './SessionProvider';
import { adminApi } from '../api/admin';
import { moneyApi } from '../api/money';

const NOW = new Date('2026-06-01T12:00:00Z').getTime();
const seconds = (ms: number) => Math.floor(ms / 1000);

function ShowToken() {
  const { token, isGuest } = useSession();
  return (
    <output data-testid="session">
      {token ? `token:${token.slice(-12)}` : isGuest ? 'guest' : 'anonymous'}
    </output>
  );
}

beforeEach(() => {
  vi.useFakeTimers({ now: NOW });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('token refresh', () => {
  it('is due 5 minutes before exp, or at once when that moment has passed', () => {
    expect(refreshDelay(makeToken({ exp: seconds(NOW + 15 * 60_000) }), NOW)).toBe(10 * 60_000);
    expect(refreshDelay(makeToken({ exp: seconds(NOW + 4 * 60_000) }), NOW)).toBe(0);
    expect(refreshDelay(makeToken({ exp: seconds(NOW - 60_000) }), NOW)).toBe(0);
    expect(REFRESH_LEAD_MS).toBe(300_000);
  });

  it('refreshes 5 minutes before exp with the cookie only, then schedules the next one', async () => {
    storeSession(makeToken({ exp: seconds(NOW + 15 * 60_000) }));
    const fresh = makeToken({ exp: seconds(NOW + 25 * 60_000), username: 'ana' });
    const api = fakeApi({ 'POST /api/user/refresh': () => json(200, { token: fresh }) });
    renderWithProviders(<ShowToken />);

    await act(() => vi.advanceTimersByTimeAsync(10 * 60_000 - 1));
    expect(api.callsTo('POST', '/api/user/refresh')).toHaveLength(0);
    await act(() => vi.advanceTimersByTimeAsync(1));
    const [call] = api.callsTo('POST', '/api/user/refresh');
    expect(call).toMatchObject({ credentials: 'include' });
    expect(call!.headers.authorization).toBeUndefined();
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(window.localStorage.getItem('token')).toBe(fresh);

    // The fresh token expires at +25 min: the next refresh is at +20 min.
    await act(() => vi.advanceTimersByTimeAsync(10 * 60_000 - 1));
    expect(api.callsTo('POST', '/api/user/refresh')).toHaveLength(1);
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(api.callsTo('POST', '/api/user/refresh')).toHaveLength(2);
  });

  it('refreshes at once when the token is already within 5 minutes of exp', async () => {
    storeSession(makeToken({ exp: seconds(NOW + 60_000) }));
    const api = fakeApi({
      'POST /api/user/refresh': () => json(200, { token: makeToken({ exp: seconds(NOW + 15 * 60_000) }) }),
    });
    renderWithProviders(<ShowToken />);
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(api.callsTo('POST', '/api/user/refresh')).toHaveLength(1);
  });

  it('logs out when the refresh fails, with the access token so the session ends without the cookie too', async () => {
    const token = makeToken({ exp: seconds(NOW + 6 * 60_000) });
    storeSession(token);
    const api = fakeApi({ 'POST /api/user/refresh': () => json(401, { message: 'refresh token revoked' }) });
    renderWithProviders(<ShowToken />, { route: '/profile' });
    expect(screen.getByTestId('session')).toHaveTextContent('token:');
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(screen.getByTestId('session')).toHaveTextContent('guest');
    expect(window.localStorage.getItem('token')).toBeNull();
    expect(window.localStorage.getItem('username')).toBeNull();
    const logouts = api.callsTo('POST', '/api/user/refresh/logout');
    expect(logouts).toHaveLength(1);
    expect(logouts[0]!.headers.authorization).toBe(`Bearer ${token}`);
    expect(screen.getByTestId('location')).toHaveTextContent('/');
  });

  it('says why when the refresh answers that the account is suspended, and calls nothing more', async () => {
    storeSession(makeToken({ exp: seconds(NOW + 6 * 60_000) }));
    const reason = 'This account is suspended: Bot traffic. Contact support to appeal.';
    const api = fakeApi({
      'POST /api/user/refresh': () =>
        json(401, { message: reason, error: reason, msg: reason, code: 'ACCOUNT_SUSPENDED' }),
    });
    renderWithProviders(
      <>
        <ShowToken />
        <SessionMessage />
      </>,
      { route: '/profile' },
    );
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    await act(() => vi.advanceTimersByTimeAsync(0));
    expect(screen.getByRole('alert', { name: 'Tu cuenta está suspendida' })).toHaveTextContent('Bot traffic');
    expect(screen.getByTestId('session')).toHaveTextContent('anonymous');
    expect(window.localStorage.getItem('token')).toBeNull();
    expect(screen.getByTestId('location')).toHaveTextContent('/');
    await act(() => vi.advanceTimersByTimeAsync(20 * 60_000));
    expect(api.callsTo('POST', '/api/user/refresh')).toHaveLength(1);
    expect(api.callsTo('POST', '/api/user/refresh/logout')).toHaveLength(0);
  });
});

describe('a refusal of the session, on any call', () => {
  const PLAYER = '1b0f6a52-3f43-4a43-9c43-6f1c1d1e1f10';
  const live = () => makeToken({ exp: seconds(NOW + 15 * 60_000), role: 'admin' });
  const shown = () =>
    renderWithProviders(
      <>
        <ShowToken />
        <SessionMessage />
      </>,
      { route: '/profile' },
    );

  it('ends the local session when a money call meets a suspension, with the reason shown', async () => {
    const token = live();
    storeSession(token);
    const reason = 'This account is suspended: Bot traffic. Contact support to appeal.';
    fakeApi({
      'GET /api/admin/purchases': () =>
        json(403, { message: reason, error: reason, msg: reason, code: 'ACCOUNT_SUSPENDED' }),
    });
    shown();
    await act(() => moneyApi.purchases(token, PLAYER).catch(() => undefined));
    expect(screen.getByRole('alert', { name: 'Tu cuenta está suspendida' })).toHaveTextContent('Bot traffic');
    expect(screen.getByTestId('session')).toHaveTextContent('anonymous');
    expect(window.localStorage.getItem('token')).toBeNull();
  });

  it('ends it when an admin call answers 401 to the current token (the session ended elsewhere)', async () => {
    const token = live();
    storeSession(token);
    const ended = 'This session has ended; please sign in again';
    fakeApi({
      'GET /api/admin/users': () =>
        json(401, { message: ended, error: ended, msg: ended, code: 'UNAUTHORIZED' }),
    });
    shown();
    await act(() => adminApi.players(token, {}).catch(() => undefined));
    expect(screen.getByTestId('session')).toHaveTextContent('anonymous');
    expect(screen.getByText('Tu sesión ha terminado. Vuelve a iniciar sesión.')).toBeInTheDocument();
    expect(screen.getByTestId('location')).toHaveTextContent('/');
  });

  it('keeps the session when the refused token is one this browser has since replaced', async () => {
    const current = live();
    storeSession(current);
    fakeApi({ 'GET /api/admin/users': () => json(401, { message: 'Token expired', code: 'UNAUTHORIZED' }) });
    shown();
    await act(() => adminApi.players(makeToken({ exp: seconds(NOW + 60_000) }), {}).catch(() => undefined));
    expect(screen.getByTestId('session')).toHaveTextContent('token:');
  });
});
