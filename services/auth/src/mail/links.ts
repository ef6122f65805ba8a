// Mailed links are minted when the mail is sent, never before: an event names a request (a reset, an
// email change, an address to verify) and the queued mail names which link to mint for it ({ kind, ref }).
// At send, the kind's minter makes a fresh token from auth's own store, storing only its hash (replacing
// a hash minted before, so only the newest mail of a link works), or answers null when the link may no
// longer be used (used, spent by a security event, cancelled, expired): the mail is then dropped, so a
// spent link is never minted again. A new kind of mail with a link adds its minter here.
import type { Deps } from '../deps.js';
import { mintConfirmToken, mintUndoToken } from '../email-change/email-changes.repo.js';
import { mintResetToken } from '../password-reset/reset-tokens.repo.js';
import { mintPayoutEmailToken } from '../payout-email/payout-link.js';
import { mintVerificationToken } from '../verification/verification.service.js';

/** What a queued mail says about its link: which minter, and the request it names (no secret). */
export interface LinkOrder {
  kind: LinkKind;
  ref: string;
}

export interface LinkMinter {
  /** The web app's page the link opens. */
  page: string;
  /** A fresh token for the link, or null when the request's link may no longer be used. */
  mint(deps: Deps, order: { ref: string; recipient: string }, now: number): Promise<string | null>;
}

export const LINK_MINTERS = {
  passwordReset: {
    page: '/reset-password',
    mint: (deps, { ref }, now) => mintResetToken(deps.db, ref, now),
  },
  confirmEmailChange: {
    page: '/confirm-email',
    mint: (deps, { ref }, now) => mintConfirmToken(deps.db, ref, now),
  },
  undoEmailChange: {
    page: '/undo-email-change',
    mint: (deps, { ref }, now) =>
      mintUndoToken(deps.db, ref, now, deps.config.EMAIL_CHANGE_UNDO_AFTER_CONFIRM_HOURS),
  },
  // Minted by payments, which owns the request (ref) and keeps the hash.
  confirmPayoutEmail: {
    page: '/confirm-payout-email',
    mint: (deps, { ref }) => mintPayoutEmailToken(deps, ref),
  },
  // Signed, not stored: bound to the account (ref) and the address the mail goes to.
  verifyEmail: {
    page: '/verify-email',
    mint: (deps, { ref, recipient }, now) => mintVerificationToken(deps, ref, recipient, now),
  },
} satisfies Record<string, LinkMinter>;

export type LinkKind = keyof typeof LINK_MINTERS;

export const isLinkKind = (kind: string): kind is LinkKind => Object.hasOwn(LINK_MINTERS, kind);

/** The web app's page for a link, with its token. */
export function webLink(deps: Deps, path: string, token: string): string {
  const url = new URL(path, deps.config.PUBLIC_WEB_URL);
  url.searchParams.set('token', token);
  return url.toString();
}

/**
 * The link a queued mail carries, minted now: a URL, null when the link may no longer be used, or
 * undefined for a mail without a link.
 */
export async function mintLink(
  deps: Deps,
  link: { kind: string; ref: string } | null,
  recipient: string,
  now: number,
): Promise<string | null | undefined> {
  if (!link) return undefined;
  if (!isLinkKind(link.kind)) throw new Error(`no minter for links of kind ${link.kind}`);
  const minter: LinkMinter = LINK_MINTERS[link.kind];
  const token = await minter.mint(deps, { ref: link.ref, recipient }, now);
  return token === null ? null : webLink(deps, minter.page, token);
}
