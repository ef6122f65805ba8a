// Everything a screen needs around it; tests mount the same providers with their own router,
// query client and socket factory.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { I18nextProvider } from 'react-i18next';
import { NoticesProvider } from '../components/Notices';
import { LiveProvider, type SocketFactory } from '../features/game/live';
import { appI18n } from '../i18n';
import { SessionProvider } from '../session/SessionProvider';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: 1, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}

export function AppProviders({
  children,
  queryClient,
  socketFactory,
}: {
  children: ReactNode;
  queryClient: QueryClient;
  socketFactory?: SocketFactory;
}) {
  return (
    <I18nextProvider i18n={appI18n()}>
      <QueryClientProvider client={queryClient}>
        <NoticesProvider>
          <SessionProvider>
            <LiveProvider factory={socketFactory}>{children}</LiveProvider>
          </SessionProvider>
        </NoticesProvider>
      </QueryClientProvider>
    </I18nextProvider>
  );
}
