// Every mail a user can trigger is under one quota, per account and per address mailed: verification
// (sign-up's included), password reset, email change and payout email alike. Each path adds these scopes to the one atomic
// count it makes before any work (request-limit.ts), so a burst cannot slip past; past them, 429 with
// Retry-After and the limit named.
import { canonicalEmail } from '@omc/contracts';
import type { Config } from '../config.js';
import type { LimitScope } from '../security/request-limit.js';

export interface UserMail {
  /** The account the request is about; absent when only an address is known (a reset request). */
  accountId?: string;
  /** Every address the request mails. */
  to: readonly (string | null | undefined)[];
}

function windowText(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes >= 60 && minutes % 60 === 0) return minutes === 60 ? 'an hour' : `${minutes / 60} hours`;
  return minutes >= 1 ? `${minutes} minutes` : `${Math.ceil(ms / 1000)} seconds`;
}

/**
 * The mailbox an address reaches, in the one form addresses are compared in (canonicalEmail): every
 * spelling of it (the domain's case, the local part's case, compatibility forms) shares one quota. An
 * address kept before addresses were held to one plain spelling may still wear a display name
 * (`name <box@example.org>`): the mailbox inside the brackets is what a mailer would write to.
 */
export function mailbox(address: string): string {
  const open = address.lastIndexOf('<');
  const close = address.lastIndexOf('>');
  const inner = open >= 0 && close > open ? address.slice(open + 1, close) : address;
  return canonicalEmail(inner);
}

/** The quota's scopes for one request that mails: its account once, and each address it mails. */
export function mailQuota(config: Config, mail: UserMail): LimitScope[] {
  const per = windowText(config.RESET_WINDOW_MS);
  const scopes: LimitScope[] = [];
  if (mail.accountId)
    scopes.push({
      key: `mail:account:${mail.accountId}`,
      max: config.MAIL_MAX_PER_ACCOUNT,
      message: (s) =>
        `Too many mails asked for this account: at most ${config.MAIL_MAX_PER_ACCOUNT} requests that send mail in ${per}. Try again in ${s} seconds.`,
    });
  const addresses = new Set(mail.to.flatMap((a) => (a ? [mailbox(a)] : [])));
  for (const address of addresses)
    scopes.push({
      key: `mail:to:${address}`,
      max: config.MAIL_MAX_PER_ADDRESS,
      message: (s) =>
        `Too many mails to ${address}: at most ${config.MAIL_MAX_PER_ADDRESS} in ${per}. Try again in ${s} seconds.`,
    });
  return scopes;
}
