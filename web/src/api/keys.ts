// Query keys per domain, so invalidation names what it refreshes.
export const queryKeys = {
  profile: (token: string | null) => ['profile', token] as const,
  profileAll: ['profile'] as const,
  gameState: ['game', 'state'] as const,
  gameRules: ['game', 'rules'] as const,
  winners: ['winners'] as const,
  adminUsers: ['admin', 'users'] as const,
  approvals: ['admin', 'approvals'] as const,
  clientToken: (token: string | null) => ['payments', 'clientToken', token] as const,
};
