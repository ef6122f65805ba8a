// The development mail catcher read as a player reads an inbox: maildev lists every mail it caught at
// `${mailUrl}/email`, oldest first. Suites find account mail and the links in it here.

/** A mail as maildev's API lists it (the parts the suites read). */
export interface CaughtMail {
  to: { address: string }[];
  subject: string;
  text?: string;
  /** The mail's headers, names in lower case. */
  headers?: Record<string, string>;
  date?: string;
}

/**
 * Every mail in the catcher, oldest first; none while it does not answer. A mail without recipients is
 * left out: the file of one the catcher was writing when it was stopped, read back empty at its restart
 * (the sender was never told it arrived, and sends it again).
 */
export async function caughtMails(mailUrl: string): Promise<CaughtMail[]> {
  const response = await fetch(`${mailUrl}/email`, { signal: AbortSignal.timeout(10_000) }).catch(
    () => undefined,
  );
  if (!response?.ok) return [];
  const mails = (await response.json()) as Partial<CaughtMail>[];
  return mails.filter((m): m is CaughtMail => Array.isArray(m.to) && m.to.length > 0);
}

const isTo = (mail: CaughtMail, address: string) =>
  mail.to.some((to) => to.address.toLowerCase() === address.toLowerCase());

/** The mails to `address` (in any letter case), oldest first, whose subject matches when one is given. */
export async function mailsTo(mailUrl: string, address: string, subject?: RegExp): Promise<CaughtMail[]> {
  return (await caughtMails(mailUrl)).filter(
    (m) => isTo(m, address) && (!subject || subject.test(m.subject)),
  );
}

/** The link to the web app's `page` (as 'verify-email' or '/verify-email') in a mail's text. */
export function linkIn(mail: CaughtMail, page: string): string | undefined {
  const path = page.replace(/^\//, '');
  return new RegExp(`https?://\\S+/${path}\\?token=[\\w.~%-]+`).exec(mail.text ?? '')?.[0];
}

/** The token a mailed link carries. */
export const tokenOf = (link: string): string => new URL(link).searchParams.get('token') ?? '';

/**
 * Waits for a mail to `address` with a link to `page` and returns the newest such link; throws naming
 * the address and page when none came within `timeoutMs`.
 */
export async function mailedLink(
  mailUrl: string,
  address: string,
  page: string,
  { timeoutMs = 30_000 }: { timeoutMs?: number } = {},
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const link = (await mailsTo(mailUrl, address)).map((m) => linkIn(m, page)).findLast(Boolean);
    if (link) return link;
    if (Date.now() > deadline) throw new Error(`no mail with a ${page} link to ${address} in the catcher`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
