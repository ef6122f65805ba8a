import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter, useLocation } from 'react-router-dom';
import { AppRoutes } from '../app/AppRoutes';
import { AppProviders, createQueryClient } from '../app/providers';
import type { GameSocket } from '../features/game/live';

// The app loads these pages when opened (app/AppRoutes.tsx); loading them here first, once per file that
// renders the app, lets a lazy page show as soon as a test opens it instead of after its first compile.
await Promise.all([
  import('../features/admin/PlayerMoneyPage'),
  import('../features/admin/PlayersPage'),
  import('../features/admin/RoleManagerPage'),
  import('../features/auth/EmailChangePages'),
  import('../features/auth/ResetPasswordPage'),
  import('../features/auth/VerifyEmailPage'),
  import('../features/profile/ProfilePage'),
  import('../features/winners/WinnersPage'),
]);

/** A socket that the test drives: `emit` plays a server event. */
export function fakeSocket() {
  const handlers = new Map<string, ((payload?: unknown) => void)[]>();
  const socket = {
    on(event: string, handler: (payload?: unknown) => void) {
      handlers.set(event, [...(handlers.get(event) ?? []), handler]);
      return socket;
    },
    disconnect() {
      handlers.clear();
      return socket;
    },
    connect() {
      connects += 1;
      return socket;
    },
    active: true,
  };
  let connects = 0;
  const tokens: (string | null)[] = [];
  return {
    socket: socket as unknown as GameSocket,
    /** How often the page asked the socket to connect again. */
    get connects() {
      return connects;
    },
    /** Whether the socket reconnects by itself (false once the server closed it). */
    setActive(active: boolean) {
      socket.active = active;
    },
    /** The token each connection would have sent. */
    tokens,
    emit(event: string, payload?: unknown) {
      for (const handler of handlers.get(event) ?? []) handler(payload);
    },
  };
}

export function Location() {
  const location = useLocation();
  return <output data-testid="location">{location.pathname}</output>;
}

export function renderWithProviders(ui: ReactNode, { route = '/', socket = fakeSocket() } = {}) {
  const queryClient = createQueryClient();
  queryClient.setDefaultOptions({
    queries: { retry: false, refetchOnWindowFocus: false },
    mutations: { retry: false },
  });
  const result = render(
    <MemoryRouter initialEntries={[route]}>
      <AppProviders
        queryClient={queryClient}
        socketFactory={(token) => {
          socket.tokens.push(token());
          return socket.socket;
        }}
      >
        {ui}
        <Location />
      </AppProviders>
    </MemoryRouter>,
  );
  return { ...result, queryClient, socket };
}

export function renderApp(route: string, options: { socket?: ReturnType<typeof fakeSocket> } = {}) {
  return renderWithProviders(<AppRoutes />, { route, ...options });
}
