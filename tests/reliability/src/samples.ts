// A body each route accepts from its rightful owner, so an attack changes one thing at a time. A route
// missing here is still attacked with everything that needs no valid body.
export const VALID_BODIES: Record<string, Record<string, unknown>> = {
  '/api/user/login': { emailOrUsername: 'someone', password: 'secret-password-1' },
  '/api/user/register': {
    username: 'someone_new',
    email: 'someone_new@example.com',
    password: 'secret-password-1',
  },
  '/api/user/change-language': { language: 'en' },
  '/api/user/change-email': { email: 'mallory@example.com' },
  '/api/user/change-password': { currentPassword: 'whatever-1', newPassword: 'whatever-2' },
  '/api/user/change-username': { username: 'mallory_name' },
  '/api/user/confirm-email': { token: 'sample-mailed-token-0001' },
  '/api/user/undo-email-change': { token: 'sample-mailed-token-0001' },
  '/api/admin/updateRole': { email: 'mallory@example.com', role: 'admin' },
  '/api/payments/checkout': {
    paymentMethodNonce: 'fake-valid-nonce',
    amount: '0.99',
    idempotencyKey: 'sample_key_0001',
  },
  '/api/winners/setPaymentMethod': { paypalEmail: 'mallory@example.com' },
  '/api/winners/confirm-payout-email': { token: 'sample-mailed-token-0001' },
  '/api/admin/purchases/:id/refund': { reason: 'Refund asked by the buyer' },
};
