// The operator's money calls: a player's purchases and payouts, refunding a purchase.
import { api, operations } from './http';

export const MONEY_PAGE = 20;

export const moneyApi = {
  purchases: (token: string, userId: string, cursor?: string) =>
    api.call(operations.playerPurchases, { token, query: { userId, cursor, limit: MONEY_PAGE } }),
  payouts: (token: string, userId: string, cursor?: string) =>
    api.call(operations.playerPayouts, { token, query: { userId, cursor, limit: MONEY_PAGE } }),
  refund: (token: string, purchaseId: string, reason: string) =>
    api.call(operations.refundPurchase, { token, params: { id: purchaseId }, body: { reason } }),
};
