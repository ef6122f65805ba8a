// Money paths ask auth, the source of truth, who the caller is now: a token lives 15 minutes and an event
// may be late, but an account deleted or demoted a moment ago must move no money. The player's own token
// is forwarded; no answer means no money moves (503), never a guess.
import { AppError, unauthorized, withTraceHeaders } from '@omc/service-kit';
import { INTERNAL_ACCOUNT_PATH, InternalAccount } from '@omc/contracts';
import type { FastifyRequest } from 'fastify';

export interface AccountCheckOptions {
  authUrl: string;
  timeoutMs: number;
}

const cannotAsk = () =>
  new AppError('AUTH_UNAVAILABLE', 503, 'Cannot check your account right now, so nothing was moved. Try again shortly.');

export class AccountCheck {
  constructor(private readonly options: AccountCheckOptions) {}

  /** The caller's account as auth has it now; 401 when it no longer exists. */
  async current(request: FastifyRequest): Promise<InternalAccount> {
    const headers: Record<string, string> = { accept: 'application/json', 'x-request-id': request.id };
    if (request.headers.authorization) headers.authorization = request.headers.authorization;
    let response: Response;
    try {
      response = await fetch(`${this.options.authUrl}${INTERNAL_ACCOUNT_PATH}`, {
        headers: withTraceHeaders(headers, request),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch {
      throw cannotAsk();
    }
    if (response.status === 401) {
      await response.body?.cancel().catch(() => undefined);
      throw unauthorized('This account no longer exists');
    }
    const parsed = response.ok ? InternalAccount.safeParse(await response.json().catch(() => undefined)) : undefined;
    if (!parsed?.success) throw cannotAsk();
    return parsed.data;
  }
}
