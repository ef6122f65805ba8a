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
  setPaymentMethod: (token: string, paypalEmail: string) =>
    request('/api/winners/setPaymentMethod', Acknowledged, { method: 'POST', token, body: { paypalEmail } }),
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
