// The operator's money calls (a player's purchases and payouts, refunding a purchase), through the typed
// client of packages/client: inputs typed by the request schemas, answers parsed by the response ones.
import { createClient, operations } from '@omc/client';

export const MONEY_PAGE = 20;

const clientFor = (token: string) => createClient({ token: () => token });

export const moneyApi = {
  purchases: (token: string, userId: string, cursor?: string) =>
    clientFor(token).call(operations.playerPurchases, { query: { userId, cursor, limit: MONEY_PAGE } }),
  payouts: (token: string, userId: string, cursor?: string) =>
    clientFor(token).call(operations.playerPayouts, { query: { userId, cursor, limit: MONEY_PAGE } }),
  refund: (token: string, purchaseId: string, reason: string) =>
    clientFor(token).call(operations.refundPurchase, { params: { id: purchaseId }, body: { reason } }),
};
