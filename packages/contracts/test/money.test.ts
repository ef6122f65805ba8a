import { describe, expect, it } from 'vitest';
import {
  CheckoutRequest,
  PACKS,
  centsToEuros,
  formatEuroAmount,
  packForAmount,
  packView,
  parseEuroAmount,
} from '../src/index.js';

describe('money', () => {
  it('parses price strings to exact cents', () => {
    expect(parseEuroAmount('0.99')).toBe(99);
    expect(parseEuroAmount('9.99')).toBe(999);
    expect(parseEuroAmount('4.9')).toBe(490);
    expect(parseEuroAmount('5')).toBe(500);
    expect(parseEuroAmount('0.999')).toBeUndefined();
    expect(parseEuroAmount('-1')).toBeUndefined();
    expect(parseEuroAmount('1e3')).toBeUndefined();
  });

  it('maps each pack price, and only those, to its pack', () => {
    expect(packForAmount('0.99')?.clicks).toBe(100);
    expect(packForAmount('1.99')?.clicks).toBe(500);
    expect(packForAmount('4.99')?.clicks).toBe(1000);
    expect(packForAmount('9.99')?.id).toBe('unlimited');
    expect(packForAmount('0.01')).toBeUndefined();
    expect(packForAmount('99')).toBeUndefined();
  });

  it('shows euros with two decimals at the edge', () => {
    expect(centsToEuros(1250)).toBe(12.5);
    expect(formatEuroAmount(5)).toBe('0.05');
    expect(PACKS.map(packView).map((p) => p.price)).toEqual([0.99, 1.99, 4.99, 9.99]);
  });

  it('refuses a checkout amount that is not a price string', () => {
    expect(CheckoutRequest.safeParse({ paymentMethodNonce: 'fake-valid-nonce', amount: 0.99 }).success).toBe(
      false,
    );
    expect(
      CheckoutRequest.safeParse({ paymentMethodNonce: 'fake-valid-nonce', amount: '0.99' }).success,
    ).toBe(true);
  });
});
