// Braintree's published test nonces and test amounts, and what each one does to a sale.
export type Instrument =
  'credit_card' | 'paypal_account' | 'venmo_account' | 'apple_pay_card' | 'android_pay_card';

export type NonceOutcome =
  | { kind: 'approved'; instrument: Instrument; cardType?: string; last4?: string; bin?: string }
  | {
      kind: 'processor_declined';
      instrument: Instrument;
      code: string;
      text: string;
      cardType?: string;
      last4?: string;
      bin?: string;
    }
  | { kind: 'gateway_rejected'; instrument: Instrument; reason: string }
  | { kind: 'validation'; code: string; attribute: string; message: string };

const card = (cardType: string, bin: string, last4: string) => ({
  instrument: 'credit_card' as const,
  cardType,
  bin,
  last4,
});

export const TEST_NONCES: Record<string, NonceOutcome> = {
  'fake-valid-nonce': { kind: 'approved', ...card('Visa', '401288', '1881') },
  'fake-valid-visa-nonce': { kind: 'approved', ...card('Visa', '401288', '1881') },
  'fake-valid-amex-nonce': { kind: 'approved', ...card('American Express', '378282', '0005') },
  'fake-valid-mastercard-nonce': { kind: 'approved', ...card('MasterCard', '555555', '4444') },
  'fake-valid-discover-nonce': { kind: 'approved', ...card('Discover', '601111', '1117') },
  'fake-valid-jcb-nonce': { kind: 'approved', ...card('JCB', '353011', '0000') },
  'fake-valid-maestro-nonce': { kind: 'approved', ...card('Maestro', '630400', '0000') },
  'fake-valid-debit-nonce': { kind: 'approved', ...card('Visa', '400555', '0009') },
  'fake-valid-prepaid-nonce': { kind: 'approved', ...card('Visa', '450060', '0009') },
  'fake-valid-commercial-nonce': { kind: 'approved', ...card('Visa', '455673', '0007') },
  'fake-valid-healthcare-nonce': { kind: 'approved', ...card('Visa', '401288', '1881') },
  'fake-valid-payroll-nonce': { kind: 'approved', ...card('Visa', '401288', '1881') },
  'fake-valid-durbin-regulated-nonce': { kind: 'approved', ...card('Visa', '401288', '1881') },
  'fake-valid-country-of-issuance-usa-nonce': { kind: 'approved', ...card('Visa', '401288', '1881') },
  'fake-valid-country-of-issuance-cad-nonce': { kind: 'approved', ...card('Visa', '401288', '1881') },
  'fake-valid-issuing-bank-network-only-nonce': { kind: 'approved', ...card('Visa', '401288', '1881') },
  'fake-paypal-one-time-nonce': { kind: 'approved', instrument: 'paypal_account' },
  'fake-paypal-billing-agreement-nonce': { kind: 'approved', instrument: 'paypal_account' },
  'fake-paypal-future-nonce': { kind: 'approved', instrument: 'paypal_account' },
  'fake-venmo-account-nonce': { kind: 'approved', instrument: 'venmo_account' },
  'fake-apple-pay-visa-nonce': { kind: 'approved', instrument: 'apple_pay_card' },
  'fake-apple-pay-amex-nonce': { kind: 'approved', instrument: 'apple_pay_card' },
  'fake-apple-pay-mastercard-nonce': { kind: 'approved', instrument: 'apple_pay_card' },
  'fake-android-pay-nonce': { kind: 'approved', instrument: 'android_pay_card' },
  'fake-android-pay-visa-nonce': { kind: 'approved', instrument: 'android_pay_card' },
  'fake-android-pay-mastercard-nonce': { kind: 'approved', instrument: 'android_pay_card' },
  'fake-google-pay-nonce': { kind: 'approved', instrument: 'android_pay_card' },
  'fake-processor-declined-visa-nonce': {
    kind: 'processor_declined',
    code: '2000',
    text: 'Do Not Honor',
    ...card('Visa', '400011', '0002'),
  },
  'fake-processor-declined-mastercard-nonce': {
    kind: 'processor_declined',
    code: '2000',
    text: 'Do Not Honor',
    ...card('MasterCard', '510510', '5100'),
  },
  'fake-processor-declined-amex-nonce': {
    kind: 'processor_declined',
    code: '2000',
    text: 'Do Not Honor',
    ...card('American Express', '378734', '1000'),
  },
  'fake-processor-declined-discover-nonce': {
    kind: 'processor_declined',
    code: '2000',
    text: 'Do Not Honor',
    ...card('Discover', '601100', '0004'),
  },
  'fake-processor-failure-jcb-nonce': {
    kind: 'processor_declined',
    code: '3000',
    text: 'Processor Network Unavailable - Try Again',
    ...card('JCB', '353011', '3000'),
  },
  'fake-gateway-rejected-fraud-nonce': {
    kind: 'gateway_rejected',
    instrument: 'credit_card',
    reason: 'fraud',
  },
  'fake-gateway-rejected-kount-nonce': {
    kind: 'gateway_rejected',
    instrument: 'credit_card',
    reason: 'risk_threshold',
  },
  'fake-consumed-nonce': {
    kind: 'validation',
    code: '93107',
    attribute: 'payment_method_nonce',
    message: 'Cannot use a payment_method_nonce more than once.',
  },
  'fake-luhn-invalid-nonce': {
    kind: 'validation',
    code: '81715',
    attribute: 'number',
    message: 'Credit card number is invalid.',
  },
};

export const UNKNOWN_NONCE: NonceOutcome = {
  kind: 'validation',
  code: '91565',
  attribute: 'payment_method_nonce',
  message: 'Unknown or expired payment_method_nonce.',
};

/** Braintree's test amounts: 2000.00–2999.99 decline with that code, 3000.00–3000.99 fail, 5001.00 is rejected. */
export function amountOutcome(
  cents: number,
):
  | { kind: 'processor_declined'; code: string; text: string }
  | { kind: 'gateway_rejected'; reason: string }
  | undefined {
  if (cents >= 200000 && cents <= 299999) {
    const code = String(Math.floor(cents / 100));
    return { kind: 'processor_declined', code, text: DECLINE_TEXT[code] ?? 'Processor Declined' };
  }
  if (cents >= 300000 && cents <= 300099)
    return { kind: 'processor_declined', code: '3000', text: 'Processor Network Unavailable - Try Again' };
  if (cents === 500100) return { kind: 'gateway_rejected', reason: 'application_incomplete' };
  return undefined;
}

const DECLINE_TEXT: Record<string, string> = {
  '2000': 'Do Not Honor',
  '2001': 'Insufficient Funds',
  '2002': 'Limit Exceeded',
  '2003': "Cardholder's Activity Limit Exceeded",
  '2004': 'Expired Card',
  '2005': 'Invalid Credit Card Number',
  '2006': 'Invalid Expiration Date',
  '2010': 'Card Issuer Declined CVV',
  '2014': 'Processor Declined - Fraud Suspected',
  '2015': 'Transaction Not Allowed',
  '2038': 'Processor Declined',
  '2046': 'Declined',
  '2057': 'Issuer or Cardholder has put a restriction on the card',
};
