// The ledger's accounts. External accounts stand for money outside the system (what the card networks
// paid in, what PayPal paid out) and run negative or positive freely; internal accounts hold money the
// system owes someone and are never negative.
export const ACCOUNTS = {
  /** Cash received through Braintree: each purchase draws its price from here. */
  braintreeCashIn: 'external:braintree',
  /** Cash sent through PayPal Payouts: each payout lands here. */
  paypalCashOut: 'external:paypal',
  /** The current round's pot, until a winner takes it. */
  roundPot: 'pot:round',
  /** The house's share of purchases: the admin balance. */
  house: 'house',
  /**
   * What a refund gave back that neither the pot nor the house still held (the house pot already
   * collected): money the operator puts in from outside, an explicit loss (runs negative).
   */
  refundLosses: 'external:refund-losses',
  /**
   * What a clawback's loss (the provider took the price back; the clicks were spent or the pot won) the
   * house did not hold: money the operator puts in from outside (runs negative).
   */
  clawbackLosses: 'external:clawback-losses',
} as const;

export const winningsAccount = (userId: string) => `winnings:${userId}`;

export const isExternal = (accountId: string) => accountId.startsWith('external:');
