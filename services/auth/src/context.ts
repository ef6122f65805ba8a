import type { Role } from '@omc/contracts';
import type { Deps } from './deps.js';
import type { LoginGuard } from './security/login-guard.js';

/** What the routes and services of this app share: the dependencies plus the pieces built with the app. */
export interface AuthContext {
  deps: Deps;
  /** Wakes the outbox relay after a commit that wrote events (start() runs it). */
  relay: { nudge(): void };
  /** Wakes the mail sender after a commit that queued mail (start() runs it). */
  mail: { nudge(): void };
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
