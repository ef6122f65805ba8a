import { queryOptions } from '@tanstack/react-query';
import { api, operations } from './http';
import { queryKeys } from './keys';

export const paymentsApi = {
  clientToken: (token: string | null) => api.call(operations.clientToken, { token }),
  checkout: (token: string, body: { paymentMethodNonce: string; amount: string }) =>
    api.call(operations.checkout, { token, body }),
  /** Asks for a new payout address: it changes once confirmed from the link mailed to the account email. */
  setPaymentMethod: (token: string, paypalEmail: string, currentPassword?: string) =>
    api.call(operations.setPaymentMethod, {
      token,
      body: { paypalEmail, ...(currentPassword ? { currentPassword } : {}) },
    }),
  /** The link mailed to the account email: no session needed. */
  confirmPayoutEmail: (token: string) => api.call(operations.confirmPayoutEmail, { body: { token } }),
  collect: (token: string) => api.call(operations.collect, { token }),
};

export const clientTokenQuery = (token: string | null) =>
  queryOptions({
    queryKey: queryKeys.clientToken(token),
    queryFn: () => paymentsApi.clientToken(token),
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });
