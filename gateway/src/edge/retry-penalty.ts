// Who was told to come back later, and when. A click refused for overload gives its client a deadline
// (the Retry-After it was sent); a click from that client before the deadline is refused again at once,
// and each such early retry doubles the wait, up to a bound. Keys are the bearer token as sent (a
// forged token is another key, so nobody can get another player penalised) and the caller's address
// (IPv6 grouped by /64), the latter only once that address has retried early several times, and then
// only for clicks without a token the game has already accepted: a polite neighbour behind the same
// NAT, whose clicks were counted before, is not refused for an impolite one's retries, while a client
// that switches to made-up tokens (or none) to escape its record is. Per replica, in Maps used as
// LRUs of bounded size: an evicted client merely starts again with a clean record.
import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';

export interface RetryPenaltyOptions {
  /** Clients remembered at most; the least recently refused is forgotten first. */
  maxKeys: number;
  /** The longest wait an early retry can earn, in ms. */
  maxPenaltyMs: number;
  /** Early retries from one address (over all its tokens) before the address itself is refused. */
  addressStrikes?: number;
}

interface Entry {
  deadline: number;
  strikes: number;
}

/** The address a penalty is kept for: IPv4 as is, IPv6 by its /64 (one subscriber's usual allocation). */
export function addressKey(address: string): string {
  const plain = address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
  if (!isIPv6(plain)) return `a:${plain}`;
  const [head = '', tail = ''] = plain.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = plain.includes('::')
    ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `a:${groups
    .slice(0, 4)
    .map((g) => parseInt(g || '0', 16).toString(16))
    .join(':')}::/64`;
}

/** The credential a penalty is kept for: a digest of the Authorization header exactly as sent. */
export function tokenKey(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  return `t:${createHash('sha1').update(authorization).digest('base64')}`;
}

export class RetryPenalty {
  private readonly entries = new Map<string, Entry>();
  /** Tokens whose clicks the game accepted lately (a 200): proof enough they are real credentials. */
  private readonly vouched = new Map<string, true>();
  private readonly addressStrikes: number;

  constructor(private readonly options: RetryPenaltyOptions) {
    this.addressStrikes = options.addressStrikes ?? 8;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * A click arrives: the ms it must still wait (it is refused, and its wait grows), or 0 to let it on.
   * `token` may be undefined (no credential); `address` is always known.
   */
  early(address: string, token: string | undefined, now: number): number {
    const own = token ?? address;
    const ownEntry = this.live(own, now);
    const addressEntry = token ? this.live(address, now) : undefined;
    const blockedByAddress =
      addressEntry !== undefined &&
      addressEntry.strikes >= this.addressStrikes &&
      !(token !== undefined && this.vouched.has(token));
    if (!ownEntry && !blockedByAddress) return 0;
    let wait = 0;
    if (ownEntry) wait = Math.max(wait, this.strike(own, ownEntry, now));
    // The address keeps count of its early retries over every token it sends: past `addressStrikes`
    // of them, a client that switches to another unproven token (or drops it) is still refused.
    if (token) {
      const entry = addressEntry ?? { deadline: now, strikes: 0 };
      const addressWait = this.strike(address, entry, now);
      if (entry.strikes >= this.addressStrikes && !this.vouched.has(token))
        wait = Math.max(wait, addressWait);
    }
    return wait;
  }

  /** The game accepted a click sent with this token. */
  accepted(token: string | undefined): void {
    if (!token) return;
    this.vouched.delete(token);
    this.vouched.set(token, true);
    if (this.vouched.size > this.options.maxKeys) {
      const oldest = this.vouched.keys().next().value as string;
      this.vouched.delete(oldest);
    }
  }

  /** A click was refused for overload and told to wait `retryAfterMs`. */
  refused(address: string, token: string | undefined, retryAfterMs: number, now: number): void {
    const own = token ?? address;
    const entry = this.live(own, now);
    if (entry) {
      entry.deadline = Math.max(entry.deadline, now + retryAfterMs);
      this.touch(own, entry);
    } else {
      this.touch(own, { deadline: now + retryAfterMs, strikes: 0 });
    }
  }

  private strike(key: string, entry: Entry, now: number): number {
    entry.strikes += 1;
    const penalty = Math.min(this.options.maxPenaltyMs, 1000 * 2 ** Math.min(entry.strikes, 20));
    entry.deadline = Math.max(entry.deadline, now + penalty);
    this.touch(key, entry);
    return entry.deadline - now;
  }

  private live(key: string, now: number): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.deadline <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private touch(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    while (this.entries.size > this.options.maxKeys) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}
