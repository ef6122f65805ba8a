// Every route on an internal path (/internal/*) with the services allowed to call it, its body and its
// answer: the one list the services' caller check reads, the internal client (service-kit) calls through
// and the catalogue test walks. A caller proves who it is with a short-lived credential signed by its own
// key (SERVICE_CREDENTIAL_HEADER); a route not listed here is refused.
import type { z } from 'zod';
import { INTERNAL_AUDIT_PATH, InternalAuditRecord } from './admin.js';
import { INTERNAL_HOUSE_PAYOUT_PATH, InternalHousePayout } from './approvals.js';
import { INTERNAL_ACCOUNT_PATH, InternalAccount } from './auth.js';
import {
  GameBalances,
  INTERNAL_USER_BALANCES_PATH,
  InternalBalancesRequest,
  MoneyBalances,
} from './balances.js';
import {
  InternalRoleApplied,
  InternalRoleChange,
  InternalSuspensionApplied,
  InternalSuspensionChange,
} from './game.js';
import {
  INTERNAL_COMPLETED_PURCHASES_PATH,
  INTERNAL_WINS_PATH,
  InternalPurchasesResponse,
  InternalRefundState,
  InternalTakeBack,
  InternalTakeBackRequest,
  InternalWin,
  InternalWinsResponse,
  internalRefundPath,
} from './internal.js';
import {
  CollectResponse,
  INTERNAL_ACCOUNT_SECURITY_PATH,
  INTERNAL_PAYOUT_EMAIL_MAIL_PATH,
  INTERNAL_PAYOUT_EMAIL_TOKEN_PATH,
  InternalAccountSecurity,
  InternalPayoutEmailMail,
  InternalPayoutEmailToken,
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
  /** The JSON body a caller sends, when it sends one. */
  body?: z.ZodType;
  /** The answer of a 2xx, when the caller reads one. */
  response?: z.ZodType;
}

/** Every internal route by name: the catalogue the internal client (service-kit) calls through. */
export const INTERNAL = {
  account: {
    method: 'GET',
    path: INTERNAL_ACCOUNT_PATH,
    service: 'auth',
    callers: ['payments'],
    response: InternalAccount,
  },
  audit: {
    method: 'POST',
    path: INTERNAL_AUDIT_PATH,
    service: 'auth',
    callers: ['payments'],
    body: InternalAuditRecord,
  },
  payoutEmailMail: {
    method: 'POST',
    path: INTERNAL_PAYOUT_EMAIL_MAIL_PATH,
    service: 'auth',
    callers: ['payments'],
    body: InternalPayoutEmailMail,
  },
  accountSecurity: {
    method: 'GET',
    path: INTERNAL_ACCOUNT_SECURITY_PATH,
    service: 'auth',
    callers: ['payments'],
    response: InternalAccountSecurity,
  },
  wins: {
    method: 'GET',
    path: INTERNAL_WINS_PATH,
    service: 'game',
    callers: ['payments'],
    response: InternalWinsResponse,
  },
  win: {
    method: 'GET',
    path: `${INTERNAL_WINS_PATH}/:round`,
    service: 'game',
    callers: ['payments'],
    response: InternalWin,
  },
  userRole: {
    method: 'PUT',
    path: '/internal/users/:userId/role',
    service: 'game',
    callers: ['auth'],
    listener: 'internal',
    body: InternalRoleChange,
    response: InternalRoleApplied,
  },
  userSuspension: {
    method: 'PUT',
    path: '/internal/users/:userId/suspension',
    service: 'game',
    callers: ['auth'],
    listener: 'internal',
    body: InternalSuspensionChange,
    response: InternalSuspensionApplied,
  },
  clickBalances: {
    method: 'POST',
    path: INTERNAL_USER_BALANCES_PATH,
    service: 'game',
    callers: ['auth'],
    listener: 'internal',
    body: InternalBalancesRequest,
    response: GameBalances,
  },
  takeBack: {
    method: 'POST',
    path: '/internal/purchases/:id/take-back',
    service: 'game',
    callers: ['payments'],
    listener: 'internal',
    body: InternalTakeBackRequest,
    response: InternalTakeBack,
  },
  moneyBalances: {
    method: 'POST',
    path: INTERNAL_USER_BALANCES_PATH,
    service: 'payments',
    callers: ['auth'],
    body: InternalBalancesRequest,
    response: MoneyBalances,
  },
  completedPurchases: {
    method: 'GET',
    path: INTERNAL_COMPLETED_PURCHASES_PATH,
    service: 'payments',
    callers: ['game'],
    response: InternalPurchasesResponse,
  },
  payoutEmailToken: {
    method: 'POST',
    path: INTERNAL_PAYOUT_EMAIL_TOKEN_PATH,
    service: 'payments',
    callers: ['auth'],
    response: InternalPayoutEmailToken,
  },
  refund: {
    method: 'GET',
    path: internalRefundPath(':id'),
    service: 'payments',
    callers: ['game'],
    response: InternalRefundState,
  },
  housePayout: {
    method: 'POST',
    path: INTERNAL_HOUSE_PAYOUT_PATH,
    service: 'payments',
    callers: ['auth'],
    body: InternalHousePayout,
    response: CollectResponse,
  },
} as const satisfies Record<string, InternalRouteContract>;

export const INTERNAL_ROUTES: readonly InternalRouteContract[] = Object.values(INTERNAL);

/** What a caller of `R` sends as its body. */
export type InternalBody<R extends InternalRouteContract> = R extends { body: z.ZodType }
  ? z.input<R['body']>
  : never;
/** What a 2xx of `R` answers, as read (undefined when the caller reads no answer). */
export type InternalAnswerOf<R extends InternalRouteContract> = R extends { response: z.ZodType }
  ? z.output<R['response']>
  : undefined;

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
