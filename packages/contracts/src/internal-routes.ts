// Every route on an internal path (/internal/*) with the services allowed to call it: the one list the
// services' caller check reads and the catalogue test walks. A caller proves who it is with a short-lived
// credential signed by its own key (SERVICE_CREDENTIAL_HEADER); a route not listed here is refused.
import { INTERNAL_AUDIT_PATH } from './admin.js';
import { INTERNAL_HOUSE_PAYOUT_PATH } from './approvals.js';
import { INTERNAL_ACCOUNT_PATH } from './auth.js';
import { INTERNAL_USER_BALANCES_PATH } from './balances.js';
import { INTERNAL_COMPLETED_PURCHASES_PATH, INTERNAL_WINS_PATH, internalRefundPath } from './internal.js';
import {
  INTERNAL_ACCOUNT_SECURITY_PATH,
  INTERNAL_PAYOUT_EMAIL_MAIL_PATH,
  INTERNAL_PAYOUT_EMAIL_TOKEN_PATH,
} from './payments.js';
import type { Service } from './routes.js';

/** The header an internal call carries its caller's credential in (the player's token stays in Authorization). */
export const SERVICE_CREDENTIAL_HEADER = 'x-omc-service-credential';
/** The path prefix of every internal route; no public prefix of the gateway reaches it. */
export const INTERNAL_PREFIX = '/internal/';

export interface InternalRouteContract {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** As the service registers it (`:param` for a path parameter). */
  path: string;
  /** The service that answers it. */
  service: Service;
  /** The only services whose credential it accepts (403 to any other). */
  callers: readonly Service[];
  /** Where the service answers it: its main port, or the game's internal listener (INTERNAL_PORT). */
  listener?: 'main' | 'internal';
}

export const INTERNAL_ROUTES: readonly InternalRouteContract[] = [
  { method: 'GET', path: INTERNAL_ACCOUNT_PATH, service: 'auth', callers: ['payments'] },
  { method: 'POST', path: INTERNAL_AUDIT_PATH, service: 'auth', callers: ['payments'] },
  { method: 'POST', path: INTERNAL_PAYOUT_EMAIL_MAIL_PATH, service: 'auth', callers: ['payments'] },
  { method: 'GET', path: INTERNAL_ACCOUNT_SECURITY_PATH, service: 'auth', callers: ['payments'] },
  { method: 'GET', path: INTERNAL_WINS_PATH, service: 'game', callers: ['payments'] },
  { method: 'GET', path: `${INTERNAL_WINS_PATH}/:round`, service: 'game', callers: ['payments'] },
  {
    method: 'PUT',
    path: '/internal/users/:userId/role',
    service: 'game',
    callers: ['auth'],
    listener: 'internal',
  },
  {
    method: 'PUT',
    path: '/internal/users/:userId/suspension',
    service: 'game',
    callers: ['auth'],
    listener: 'internal',
  },
  {
    method: 'POST',
    path: INTERNAL_USER_BALANCES_PATH,
    service: 'game',
    callers: ['auth'],
    listener: 'internal',
  },
  {
    method: 'POST',
    path: '/internal/purchases/:id/take-back',
    service: 'game',
    callers: ['payments'],
    listener: 'internal',
  },
  { method: 'POST', path: INTERNAL_USER_BALANCES_PATH, service: 'payments', callers: ['auth'] },
  { method: 'GET', path: INTERNAL_COMPLETED_PURCHASES_PATH, service: 'payments', callers: ['game'] },
  { method: 'POST', path: INTERNAL_PAYOUT_EMAIL_TOKEN_PATH, service: 'payments', callers: ['auth'] },
  { method: 'GET', path: internalRefundPath(':id'), service: 'payments', callers: ['game'] },
  { method: 'POST', path: INTERNAL_HOUSE_PAYOUT_PATH, service: 'payments', callers: ['auth'] },
];

/** The services that call `service`'s internal routes: the public keys it must hold. */
export function callersOf(service: Service): Service[] {
  return [...new Set(INTERNAL_ROUTES.filter((r) => r.service === service).flatMap((r) => r.callers))];
}

/** The catalogue entry of one registered route of `service`, if it has one. */
export function internalRoute(
  service: Service,
  method: string,
  path: string,
): InternalRouteContract | undefined {
  return INTERNAL_ROUTES.find((r) => r.service === service && r.method === method && r.path === path);
}
