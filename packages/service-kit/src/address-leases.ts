// Connections per address, shared by every instance (realtime's sockets, the gateway's tunnels): each socket holds a lease in Redis (a member of
// its address's sorted set, scored by when it lapses), renewed by a heartbeat while the socket lives. A
// socket that closes gives its lease back at once; a killed instance's leases lapse after `leaseMs`, so
// its players' slots come back without anyone cleaning up. Bare counters would leak on every crash.
import type { Redis } from 'ioredis';

/** KEYS[1] the address's set; ARGV: now, lapse time, cap, member, ttl ms. 1 = leased, 0 = over the cap. */
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

export class AddressLeases {
  /** Leases this instance holds: member → its address's key. */
  private readonly held = new Map<string, string>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis,
    private readonly cap: number,
    private readonly leaseMs: number,
    /** The Redis key prefix of this cap's sets (one per address). */
    private readonly prefix = 'omc:realtime:leases:',
  ) {
    this.timer = setInterval(() => void this.renew(), Math.max(100, Math.floor(leaseMs / 3)));
    this.timer.unref();
  }

  /** Takes a slot for `member` under `address`'s cap across every instance; false when none is free. */
  async acquire(address: string, member: string): Promise<boolean> {
    const key = this.prefix + address;
    const now = Date.now();
    const leased = await this.redis.eval(
      ACQUIRE,
      1,
      key,
      now,
      now + this.leaseMs,
      this.cap,
      member,
      this.leaseMs,
    );
    if (Number(leased) !== 1) return false;
    this.held.set(member, key);
    return true;
  }

  release(member: string): void {
    const key = this.held.get(member);
    if (key === undefined) return;
    this.held.delete(member);
    // Redis away: the lease lapses by itself.
    this.redis.zrem(key, member).catch(() => undefined);
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const lapse = Date.now() + this.leaseMs;
    const batch = this.redis.pipeline();
    for (const [member, key] of this.held) batch.zadd(key, 'XX', lapse, member).pexpire(key, this.leaseMs);
    await batch.exec().catch(() => undefined);
  }

  /** Stops renewing and gives every lease back (a graceful stop). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const batch = this.redis.pipeline();
    for (const [member, key] of this.held) batch.zrem(key, member);
    this.held.clear();
    await batch.exec().catch(() => undefined);
  }
}
