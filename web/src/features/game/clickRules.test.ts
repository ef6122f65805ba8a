import { UNLIMITED_CLICKS } from '@omc/contracts';
import { describe, expect, it } from 'vitest';
import { canClick, hasUnlimitedClicks } from './clickRules';

const balance = (overrides: Partial<Parameters<typeof canClick>[1]> = {}) => ({
  role: 'standard' as const,
  freeClicks: 5,
  hasInfiniteClicks: false,
  ...overrides,
});

describe('click button rules', () => {
  it('refuses without a token, whatever the balance', () => {
    expect(canClick(null, balance())).toBe(false);
    expect(canClick(null, balance({ role: 'admin' }))).toBe(false);
  });

  it('needs a free click for a standard user', () => {
    expect(canClick('t', balance({ freeClicks: 1 }))).toBe(true);
    expect(canClick('t', balance({ freeClicks: 0 }))).toBe(false);
  });

  it('lets admins, superusers and unlimited holders click with no free clicks', () => {
    expect(canClick('t', balance({ role: 'admin', freeClicks: 0 }))).toBe(true);
    expect(canClick('t', balance({ role: 'superuser', freeClicks: 0 }))).toBe(true);
    expect(canClick('t', balance({ hasInfiniteClicks: true, freeClicks: 0 }))).toBe(true);
    expect(hasUnlimitedClicks(balance({ freeClicks: UNLIMITED_CLICKS }))).toBe(true);
  });

  it('leaves an unknown balance to the server', () => {
    expect(canClick('t', balance({ freeClicks: null }))).toBe(true);
  });
});
