import type { Role } from '@omc/contracts';
import type { OutboxRelay } from '@omc/service-kit';
import type { Deps } from './deps.js';
import type { LoginGuard } from './security/login-guard.js';

/** What the routes and services of this app share: the dependencies plus the pieces built at start. */
export interface AuthContext {
  deps: Deps;
  relay: OutboxRelay;
  guard: LoginGuard;
  /** `sessionId`: the refresh family the token belongs to (its `sid` claim). */
  signAccessToken(user: { id: string; username: string; role: Role }, sessionId?: string): string;
}
