import { PACKS } from '@omc/contracts';
import { describe, expect, it } from 'vitest';
import { splitPrice } from './checkout.service.js';

describe('splitPrice', () => {
  it('gives the pot the floor of its percentage and the house the rest, so the cents always add up', () => {
    for (const percent of [0, 1, 33, 50, 67, 99, 100]) {
      for (const pack of PACKS) {
        const { potShareCents, houseShareCents } = splitPrice(pack.priceCents, percent);
        expect(Number.isInteger(potShareCents) && Number.isInteger(houseShareCents)).toBe(true);
        expect(potShareCents + houseShareCents).toBe(pack.priceCents);
        expect(potShareCents).toBe(Math.floor((pack.priceCents * percent) / 100));
        expect(houseShareCents).toBeGreaterThanOrEqual(0);
      }
    }
    expect(splitPrice(99, 50)).toEqual({ potShareCents: 49, houseShareCents: 50 });
    expect(splitPrice(999, 33)).toEqual({ potShareCents: 329, houseShareCents: 670 });
  });
});
