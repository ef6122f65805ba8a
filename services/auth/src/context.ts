import type { Role } from '@omc/contracts';
import type { Notifier } from '@omc/service-kit';
import type { Deps } from './deps.js';
import type { LoginGuard } from './security/login-guard.js';

/** What the routes and services of this app share: the dependencies plus the pieces built with the app. */
export interface AuthContext {
  deps: Deps;
  /** Told after a commit that wrote events: the outbox relay start() runs publishes them now. */
  relay: Notifier;
  /** Told after a commit that queued mail: the mail sender start() runs sends it now. */
  mail: Notifier;
  guard: LoginGuard;
  /**
   * `sessionId`: the refresh family the token belongs to (its `sid` claim); the account's
   * `security_version` becomes its `sv` claim.
   */
  signAccessToken(
    user: { id: string; username: string; role: Role; security_version: number },
    sessionId: string,
  ): string;
}
