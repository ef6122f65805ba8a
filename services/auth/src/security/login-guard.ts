// Brute-force protection in Redis, so the limits hold across replicas. Failures are counted in fixed
// windows per IP, per account and IP (tight), and per account (loose, against guessing from many IPs).
// A limit reached sets a lock of fixed length that attempts during the lock do not extend, so nobody
// can keep a real user out longer than one lock-out per window, and a single attacking IP only locks
// itself out of that account.
import { AppError } from '@omc/service-kit';
import type { Redis } from 'ioredis';

export interface GuardLimits {
  windowMs: number;
  lockoutMs: number;
  maxPerIp: number;
  maxPerAccountIp: number;
  maxPerAccount: number;
  maxRegistrationsPerIp: number;
}

interface Scope {
  key: string;
  max: number;
  message: (seconds: number) => string;
}

const PREFIX = 'auth:guard:';

export class RateLimited extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('RATE_LIMITED', 429, message);
  }
}

function unavailable(): AppError {
  return new AppError('UNAVAILABLE', 503, 'Sign-in is temporarily unavailable, please try again shortly');
}

export class LoginGuard {
  constructor(
    private readonly redis: Redis,
    private readonly limits: GuardLimits,
  ) {}

  private scopes(ip: string, account: string): Scope[] {
    const scopes: Scope[] = [
      {
        key: `ip:${ip}`,
        max: this.limits.maxPerIp,
        message: (s) => `Too many failed logins from your network. Try again in ${s} seconds.`,
      },
      {
        key: `acctip:${account}:${ip}`,
        max: this.limits.maxPerAccountIp,
        message: (s) => `Too many failed logins for this account. Try again in ${s} seconds.`,
      },
      {
        key: `acct:${account}`,
        max: this.limits.maxPerAccount,
        message: (s) => `Too many failed logins for this account. Try again in ${s} seconds.`,
      },
    ];
    return scopes.filter((s) => s.max > 0);
  }

  /** Throws 429 when the IP or the account is locked out. */
  async check(ip: string, account: string): Promise<void> {
    const scopes = this.scopes(ip, account);
    if (scopes.length === 0) return;
    let ttls: number[];
    try {
      ttls = (await this.redis.pipeline(scopes.map((s) => ['pttl', `${PREFIX}lock:${s.key}`])).exec())!.map(
        ([, v]) => Number(v),
      );
    } catch {
      throw unavailable();
    }
    ttls.forEach((ttl, i) => {
      if (ttl > 0) {
        const seconds = Math.max(1, Math.ceil(ttl / 1000));
        throw new RateLimited(scopes[i]!.message(seconds), seconds);
      }
    });
  }

  /** Counts a failed attempt in every scope; a scope that reaches its limit is locked out. */
  async recordFailure(ip: string, account: string): Promise<void> {
    const { windowMs, lockoutMs } = this.limits;
    try {
      for (const scope of this.scopes(ip, account)) {
        const counter = `${PREFIX}fail:${scope.key}`;
        const result = await this.redis.multi().set(counter, 0, 'PX', windowMs, 'NX').incr(counter).exec();
        const count = Number(result?.[1]?.[1] ?? 0);
        if (count >= scope.max) {
          await this.redis
            .multi()
            .set(`${PREFIX}lock:${scope.key}`, '1', 'PX', lockoutMs, 'NX')
            .del(counter)
            .exec();
        }
      }
    } catch {
      throw unavailable();
    }
  }

  /** A successful login forgets this IP's failures for the account. */
  async recordSuccess(ip: string, account: string): Promise<void> {
    await this.redis.del(`${PREFIX}fail:acctip:${account}:${ip}`).catch(() => undefined);
  }

  /** Counts a registration from this IP; throws 429 past the limit for the window. */
  async countRegistration(ip: string): Promise<void> {
    const max = this.limits.maxRegistrationsPerIp;
    if (max <= 0) return;
    const counter = `${PREFIX}register:${ip}`;
    let count: number;
    let ttl: number;
    try {
      const result = await this.redis
        .multi()
        .set(counter, 0, 'PX', this.limits.windowMs, 'NX')
        .incr(counter)
        .pttl(counter)
        .exec();
      count = Number(result?.[1]?.[1] ?? 0);
      ttl = Number(result?.[2]?.[1] ?? 0);
    } catch {
      throw unavailable();
    }
    if (count > max) {
      const seconds = Math.max(1, Math.ceil(ttl / 1000));
      throw new RateLimited(
        `Too many registrations from your network. Try again in ${seconds} seconds.`,
        seconds,
      );
    }
  }
}
