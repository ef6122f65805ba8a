// Who was told to come back later, and who did not wait. A click refused for overload gives its client
// a deadline (the Retry-After it was sent). A retry before the deadline is an early retry; a client is
// refused for them only once it made more than `earlyRetriesAllowed` of them within one Retry-After
// (a script resending at once makes hundreds; a person tapping again, or a client that retries after
// a short pause of its own, a few), and then each further early retry is refused with the Retry-After
// it ignored, counted from then (up to a bound): proportionate, and short.
// Keys are the bearer token as sent (a forged token is another key, so nobody can get another player
// refused). The caller's address (IPv6 grouped by /64) counts the clients caught from it: past
// `addressClients` of them, a token the game never accepted that retries early from that address is
// refused at its first early retry, so switching to fresh or made-up tokens does not restart the
// allowance. A client that honours every Retry-After is never refused here, whatever its address. Per
// replica, in Maps used as LRUs of bounded size: an evicted client merely starts again with a clean record.
import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';

export interface RetryPenaltyOptions {
  /** Clients remembered at most; the least recently refused is forgotten first. */
  maxKeys: number;
  /** The longest wait an early retry can earn, in ms. */
  maxPenaltyMs: number;
  /** Early retries within one Retry-After that a client may make before it is refused for them. */
  earlyRetriesAllowed?: number;
  /** Clients caught from one address before its unproven tokens lose their allowance. */
  addressClients?: number;
}

interface Entry {
  /** When the Retry-After of its last overload refusal runs out. */
  deadline: number;
  /** The Retry-After it was given, in ms: the window its early retries are counted in. */
  retryAfterMs: number;
  /** Early retries counted in the current window, and when that window closes. */
  early: number;
  windowEnd: number;
  /** Refused for early retries until then (0: not caught). */
  penaltyUntil: number;
}

interface AddressEntry {
  /** Clients caught from this address while its record lasted. */
  caught: number;
  /** When the record lapses: the latest catch plus the longest wait. */
  until: number;
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
  private readonly addresses = new Map<string, AddressEntry>();
  /** Tokens whose clicks the game accepted lately (a 200): proof enough they are real credentials. */
  private readonly vouched = new Map<string, true>();
  private readonly earlyRetriesAllowed: number;
  private readonly addressClients: number;

  constructor(private readonly options: RetryPenaltyOptions) {
    this.earlyRetriesAllowed = options.earlyRetriesAllowed ?? 8;
    this.addressClients = options.addressClients ?? 3;
  }

  /** Clients remembered now (told to wait, or caught). */
  get size(): number {
    return this.entries.size;
  }

  /** Whether this client has a record at all: a click without one is let on without further work. */
  knows(token: string): boolean {
    return this.entries.has(token);
  }

  /**
   * A click arrives with a token: the ms it must still wait (it is refused, and its wait grows), or 0
   * to let it on.
   */
  early(address: string, token: string, now: number): number {
    const entry = this.live(token, now);
    if (!entry) return 0;
    if (entry.penaltyUntil > now) {
      // Caught, and still not waiting: each early retry waits its Retry-After again, from now.
      this.extend(entry, now);
      this.touch(token, entry);
      return entry.penaltyUntil - now;
    }
    if (now >= entry.deadline) return 0;
    if (now >= entry.windowEnd) {
      entry.windowEnd = now + entry.retryAfterMs;
      entry.early = 0;
    }
    entry.early += 1;
    const allowed =
      this.suspectAddress(address, now) && !this.vouched.has(token) ? 0 : this.earlyRetriesAllowed;
    if (entry.early <= allowed) {
      this.touch(token, entry);
      return 0;
    }
    this.extend(entry, now);
    this.touch(token, entry);
    this.caughtFrom(address, now);
    return entry.penaltyUntil - now;
  }

  /**
   * The game accepted a click sent with this token: it is a real credential, and once its client has
   * waited as told, its record is clean. A click accepted before its Retry-After ran out (the game had
   * room for it again, or its per-second limit refilled) leaves the early retries counted: a client that
   * resends at once gets one in now and then, and wiping its record each time would leave it uncaught
   * for ever. Every Retry-After is 1 s, so a client at 8 clicks a second or fewer is never caught.
   */
  accepted(token: string | undefined, now = Date.now()): void {
    if (!token) return;
    const entry = this.live(token, now);
    if (!entry || now >= entry.deadline) this.entries.delete(token);
    this.vouched.delete(token);
    this.vouched.set(token, true);
    if (this.vouched.size > this.options.maxKeys) {
      const oldest = this.vouched.keys().next().value as string;
      this.vouched.delete(oldest);
    }
  }

  /** A click was refused for overload and told to wait `retryAfterMs`. */
  refused(token: string, retryAfterMs: number, now: number): void {
    const entry = this.live(token, now);
    if (entry) {
      entry.deadline = Math.max(entry.deadline, now + retryAfterMs);
      entry.retryAfterMs = retryAfterMs;
      this.touch(token, entry);
    } else {
      this.touch(token, {
        deadline: now + retryAfterMs,
        retryAfterMs,
        early: 0,
        windowEnd: 0,
        penaltyUntil: 0,
      });
    }
  }

  private extend(entry: Entry, now: number): void {
    // The Retry-After it ignored, from this retry on: proportionate to what it did, and short.
    const penalty = Math.min(this.options.maxPenaltyMs, entry.retryAfterMs);
    entry.penaltyUntil = Math.max(entry.penaltyUntil, now + penalty);
  }

  private suspectAddress(address: string, now: number): boolean {
    const entry = this.addresses.get(address);
    if (!entry) return false;
    if (entry.until <= now) {
      this.addresses.delete(address);
      return false;
    }
    return entry.caught >= this.addressClients;
  }

  private caughtFrom(address: string, now: number): void {
    const entry = this.addresses.get(address);
    const live = entry && entry.until > now ? entry : { caught: 0, until: 0 };
    live.caught += 1;
    live.until = now + this.options.maxPenaltyMs;
    this.addresses.delete(address);
    this.addresses.set(address, live);
    while (this.addresses.size > this.options.maxKeys) {
      const oldest = this.addresses.keys().next().value as string;
      this.addresses.delete(oldest);
    }
  }

  private live(key: string, now: number): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.deadline <= now && entry.penaltyUntil <= now) {
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
