import { describe, expect, it } from 'vitest';
import {
  awaitingPurchase,
  profileRead,
  PURCHASE_WATCH_MS,
  purchasePollMs,
  watchPurchase,
} from './purchaseWatch';

const before = { purchasedClicks: 0, hasInfiniteClicks: false };

describe('a purchase the player waits to see', () => {
  it('is read again on a timer that slows down, for as long as a lost event takes to be reconciled', () => {
    watchPurchase(before, 0);
    expect(purchasePollMs(0)).toBe(5_000);
    expect(purchasePollMs(20_000)).toBe(10_000);
    expect(purchasePollMs(60_000)).toBe(15_000);
    expect(awaitingPurchase(PURCHASE_WATCH_MS - 1)).toBe(true);
    expect(purchasePollMs(PURCHASE_WATCH_MS)).toBe(false);
    expect(awaitingPurchase(PURCHASE_WATCH_MS)).toBe(false);
  });

  it('stops being read once the profile shows it', () => {
    watchPurchase(before, 0);
    profileRead(before);
    expect(purchasePollMs(1_000)).toBe(5_000);
    profileRead({ purchasedClicks: 100, hasInfiniteClicks: false });
    expect(purchasePollMs(2_000)).toBe(false);
  });

  it('stops being read once the profile shows an unlimited pass', () => {
    watchPurchase(before, 0);
    profileRead({ purchasedClicks: 0, hasInfiniteClicks: true });
    expect(purchasePollMs(1_000)).toBe(false);
  });
});
