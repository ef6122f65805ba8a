import type { Role } from '@omc/contracts';
import type { Notifier } from '@omc/service-kit';
import type { Deps } from './deps.js';
import type { LoginGuard } from './security/login-guard.js';

/**
 * What exists before the services: the dependencies plus the pieces built with the app. Every service is
 * constructed on it (context.ts adds the services for the routes).
 */
export interface AuthBase {
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
