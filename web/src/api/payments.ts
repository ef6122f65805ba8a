import { CheckoutResponse, ClientTokenResponse, CollectResponse, MessageResponse } from '@omc/contracts';
import { queryOptions } from '@tanstack/react-query';
import { z } from 'zod';
import { request } from './http';
import { queryKeys } from './keys';

// The server may answer setPaymentMethod with only { message } or with nothing in particular: any object.
const Acknowledged = z.union([MessageResponse, z.object({}).loose()]);

export const paymentsApi = {
  clientToken: (token: string | null) => request('/api/payments/token', ClientTokenResponse, { token }),
  checkout: (token: string, body: { paymentMethodNonce: string; amount: string }) =>
    request('/api/payments/checkout', CheckoutResponse, { method: 'POST', token, body }),
  /** Asks for a new payout address: it changes once confirmed from the link mailed to the account email. */
  setPaymentMethod: (token: string, paypalEmail: string, currentPassword?: string) =>
    request('/api/winners/setPaymentMethod', Acknowledged, {
      method: 'POST',
      token,
      body: { paypalEmail, ...(currentPassword ? { currentPassword } : {}) },
    }),
  /** The link mailed to the account email: no session needed. */
  confirmPayoutEmail: (token: string) =>
    request('/api/winners/confirm-payout-email', MessageResponse, { method: 'POST', body: { token } }),
  collect: (token: string) => request('/api/winners/collect', CollectResponse, { method: 'POST', token }),
  adminCollect: (token: string) => request('/api/admin/collect', CollectResponse, { method: 'POST', token }),
};

export const clientTokenQuery = (token: string | null) =>
  queryOptions({
    queryKey: queryKeys.clientToken(token),
    queryFn: () => paymentsApi.clientToken(token),
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });
