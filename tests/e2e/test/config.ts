// A small round so a test can play one to the end: 3 free clicks at sign-up, a milestone at 25 that
// nobody reaches by accident, the pot at 40.
export const E2E_ENV = {
  ROUND_TARGET: '40',
  MILESTONES: '25:5',
  SIGNUP_FREE_CLICKS: '3',
  CLICK_RATE_PER_USER: '1000',
  CLICK_RATE_PER_IP: '0',
  RATE_LIMIT_PER_IP: '0',
  BOOTSTRAP_ADMIN_USERNAME: 'admin',
  BOOTSTRAP_ADMIN_EMAIL: 'admin@example.com',
  BOOTSTRAP_ADMIN_PASSWORD: 'e2e-admin-password',
};
