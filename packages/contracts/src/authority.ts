// The routes decided on auth's current record of the caller (role, suspension, session), never on the
// token's claims alone: every admin route, and every route that moves money or names where it goes.
import { ROUTES, type RouteContract } from './routes.js';

/** Money routes a player may call: they move money or set where it is paid. */
export const MONEY_ROUTES: readonly string[] = [
  'POST /api/payments/checkout',
  'POST /api/winners/setPaymentMethod',
  'POST /api/winners/collect',
];

/** Every route that asks auth's current truth before it answers (the admin routes and the money routes). */
export function freshAuthorityRoutes(): RouteContract[] {
  return ROUTES.filter((r) => r.auth === 'admin' || MONEY_ROUTES.includes(`${r.method} ${r.path}`));
}
