// Who may click and who spends (docs/client-contract.md): admins, superusers and holders of the unlimited pass
// click without spending; everyone else needs a free click left; nobody clicks without a token.
import { isPrivileged, UNLIMITED_CLICKS, type Role } from '@omc/contracts';

export interface ClickerBalance {
  role: Role | null;
  freeClicks: number | null | undefined;
  hasInfiniteClicks: boolean | null | undefined;
}

export function hasUnlimitedClicks({ role, freeClicks, hasInfiniteClicks }: ClickerBalance): boolean {
  return isPrivileged(role) || hasInfiniteClicks === true || (freeClicks ?? 0) >= UNLIMITED_CLICKS;
}

export function canClick(token: string | null, balance: ClickerBalance): boolean {
  if (!token) return false;
  if (hasUnlimitedClicks(balance)) return true;
  // An unknown balance (the game service did not answer) leaves the decision to the server.
  if (balance.freeClicks === null || balance.freeClicks === undefined) return true;
  return balance.freeClicks > 0;
}
