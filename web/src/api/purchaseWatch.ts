// A purchase reaches the game a moment after the checkout answers (through an event), and its pot share
// moves the pot everyone sees. So for a short while after the player's own purchase, a pot change is the
// sign to read the profile again; once the profile shows the purchase, pot changes are other players'.
import type { ProfileResponse } from '@omc/contracts';

export const PURCHASE_WATCH_MS = 15_000;

type Balance = Pick<ProfileResponse, 'purchasedClicks' | 'hasInfiniteClicks'>;

let watch: { until: number; before: Balance | undefined } | null = null;

/** The player's checkout succeeded: watch the pot until the profile shows what was bought. */
export function watchPurchase(before: Balance | undefined, now = Date.now()): void {
  watch = { until: now + PURCHASE_WATCH_MS, before };
}

/** Whether a pot change may carry the player's own purchase. */
export function awaitingPurchase(now = Date.now()): boolean {
  if (watch && now >= watch.until) watch = null;
  return watch !== null;
}

/** A fresh profile arrived: stop watching once it differs from the one before the purchase. */
export function profileRead(profile: Balance): void {
  if (!watch) return;
  const { before } = watch;
  if (
    !before ||
    (profile.purchasedClicks ?? 0) !== (before.purchasedClicks ?? 0) ||
    profile.hasInfiniteClicks !== before.hasInfiniteClicks
  )
    watch = null;
}
