// What every page a mailed link opens shares: the page frame, the link's token, the one call a link
// makes on opening (a query, not an effect: one call per link however often the page renders) and the
// translated reason a link was refused.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { ApiClientError, errorCode } from '../../api/http';
import { queryKeys } from '../../api/keys';
import { LanguageSwitcher } from '../../components/LanguageSwitcher';
import { useSession } from '../../session/SessionProvider';

export function MailedLinkPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="page page--verify">
      <header className="welcome__bar">
        <LanguageSwitcher />
      </header>
      <main className="panel">
        <h1 className="panel__title">{title}</h1>
        {children}
      </main>
    </div>
  );
}

/** The token of the link that opened the page ('' when there is none). */
export function useLinkToken(): string {
  const [params] = useSearchParams();
  return params.get('token')?.trim() ?? '';
}

/**
 * Spends the page's link once, on opening, with the player's session when signed in; on success the
 * profile is read again (the address or its verified mark changed).
 */
export function useLinkOnOpen(
  name: string,
  spend: (token: string, session: string | null) => Promise<unknown>,
) {
  const token = useLinkToken();
  const session = useSession();
  const queryClient = useQueryClient();
  const outcome = useQuery({
    queryKey: [name, token],
    queryFn: () => spend(token, session.token),
    enabled: Boolean(token),
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
  });
  useEffect(() => {
    if (outcome.isSuccess) void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
  }, [outcome.isSuccess, queryClient]);
  return { token, outcome };
}

/** The message for a page's link: missing, refused (another account's, address taken, not valid) or none. */
export function useLinkError(
  prefix: 'verifyEmail' | 'confirmEmail' | 'undoEmailChange' | 'confirmPayoutEmail',
  token: string,
  failure: unknown,
): string | null {
  const { t } = useTranslation();
  if (!token) return t(`${prefix}.invalid`);
  if (!failure) return null;
  if (!(failure instanceof ApiClientError)) return t(`${prefix}.errorGeneric`);
  if (failure.code === errorCode('FORBIDDEN')) return t(`${prefix}.otherAccount`);
  if (failure.code === errorCode('CONFLICT') && (prefix === 'confirmEmail' || prefix === 'undoEmailChange'))
    return t(`${prefix}.taken`);
  if (failure.field === 'token') return t(`${prefix}.invalid`);
  return t(`${prefix}.errorGeneric`);
}
