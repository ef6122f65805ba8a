// A purchase reaches the game a moment after the checkout answers (through an event), and its pot share
// moves the pot everyone sees. So for a while after the player's own purchase, a pot change is the sign
// to read the profile again; once the profile shows the purchase, pot changes are other players'. A
// purchase whose event is late or lost reaches the game by the game's reconciliation pass instead: the
// profile is also read on a slow timer until it shows the purchase, so the player sees it either way.
import type { ProfileResponse } from '@omc/contracts';

/**
 * How long a purchase is watched for: the game applies one whose event was lost within one
 * reconciliation interval (`EVENT_RECONCILE_INTERVAL_MS`, 60 s) plus a pass (docs/reliability.md, "The
 * outbox is the record, the bus is the doorbell").
 */
export const PURCHASE_WATCH_MS = 75_000;
/** While a purchase is watched the profile is read at least this often: 5 s, longer as it lasts (at most 15 s). */
const PURCHASE_POLL_MS = { first: 5_000, last: 15_000 };
/** While a purchase or the player's own win is awaited, the live page reads the profile at most this often. */
export const PROFILE_RELOAD_MS = 1000;

type Balance = Pick<ProfileResponse, 'purchasedClicks' | 'hasInfiniteClicks'> &
  Partial<Pick<ProfileResponse, 'potEarned'>>;

let watch: { since: number; until: number; before: Balance | undefined } | null = null;

/** The player's checkout succeeded: watch the pot until the profile shows what was bought. */
export function watchPurchase(before: Balance | undefined, now = Date.now()): void {
  watch = { since: now, until: now + PURCHASE_WATCH_MS, before };
}

/** Whether a pot change may carry the player's own purchase. */
export function awaitingPurchase(now = Date.now()): boolean {
  if (watch && now >= watch.until) watch = null;
  return watch !== null;
}

/** When to read the profile again while a purchase is watched (false: not watching). */
export function purchasePollMs(now = Date.now()): number | false {
  if (!watch || !awaitingPurchase(now)) return false;
  return Math.min(PURCHASE_POLL_MS.last, Math.max(PURCHASE_POLL_MS.first, (now - watch.since) / 2));
}

// A win is credited by payments a moment after the winner event reaches the browser (payments checks the
// game's record first): after the player's own win, the profile is read again until it shows the pot.
export const WINNINGS_WATCH_MS = 30_000;

let winnings: { until: number; before: number } | null = null;

/** The player won the round: watch until the profile shows the winnings. */
export function watchWinnings(before: number | null | undefined, now = Date.now()): void {
  winnings = { until: now + WINNINGS_WATCH_MS, before: before ?? 0 };
}

/** How far apart the two signs of one win (its click's answer and its winner event) may arrive. */
export const OWN_WIN_PAIR_MS = 10_000;

let ownWin: { source: 'click' | 'event'; at: number } | null = null;

/**
 * The player's own win is seen twice: its click's answer says `won`, and the socket's winner event names
 * the player. The first of the two reads the profile and watches for the winnings (true); the second
 * is the same win and reads nothing (false), so a win costs one read, not one that cancels the other.
 */
export function firstSightOfOwnWin(
  source: 'click' | 'event',
  potEarnedBefore: number | null | undefined,
  now = Date.now(),
): boolean {
  if (ownWin && ownWin.source !== source && now - ownWin.at < OWN_WIN_PAIR_MS) {
    ownWin = null;
    return false;
  }
  ownWin = { source, at: now };
  watchWinnings(potEarnedBefore, now);
  return true;
}

/** Whether the player's own win is still to show in the profile. */
export function awaitingWinnings(now = Date.now()): boolean {
  if (winnings && now >= winnings.until) winnings = null;
  return winnings !== null;
}

/** A fresh profile arrived: stop watching once it differs from the one before the purchase or the win. */
export function profileRead(profile: Balance): void {
  if (winnings && (profile.potEarned ?? 0) !== winnings.before) winnings = null;
  if (!watch) return;
  const { before } = watch;
  if (
    !before ||
    (profile.purchasedClicks ?? 0) !== (before.purchasedClicks ?? 0) ||
    profile.hasInfiniteClicks !== before.hasInfiniteClicks
  )
    watch = null;
}
