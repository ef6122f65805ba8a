// Brute-force protection in Redis, so the limits hold across replicas. Failures are counted in fixed
// windows per IP, per account and IP (tight), and per account (loose, against guessing from many IPs).
// A limit reached sets a lock of fixed length that attempts during the lock do not extend, so nobody
// can keep a real user out longer than one lock-out per window, and a single attacking IP only locks
// itself out of that account. Each attempt is counted before the password is checked, in one Lua
// step, and a right password gives its count back: a burst of parallel guesses cannot slip past the
// allowance while the slow hash of the first ones runs.
import { ERROR_CODE } from '@omc/contracts';
import { addressBudgetKey, AppError } from '@omc/service-kit';
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

// One hash tag, so each script's keys share a slot should Redis ever be a cluster.
const PREFIX = '{auth:guard}:';
const lockKey = (scope: Scope) => `${PREFIX}lock:${scope.key}`;
const failKey = (scope: Scope) => `${PREFIX}fail:${scope.key}`;

// KEYS: lock and failure counter of each scope; ARGV: window, lock-out, then each scope's allowance.
// Returns {scope number, ms to wait} when refused, {0, 0} when the attempt was counted everywhere.
const RESERVE = `
local n = #KEYS / 2
for i = 1, n do
  local ttl = redis.call('PTTL', KEYS[2 * i - 1])
  if ttl > 0 then return {i, ttl} end
end
for i = 1, n do
  if tonumber(redis.call('GET', KEYS[2 * i]) or '0') >= tonumber(ARGV[2 + i]) then
    return {i, tonumber(ARGV[2])}
  end
end
for i = 1, n do
  redis.call('SET', KEYS[2 * i], 0, 'PX', ARGV[1], 'NX')
  redis.call('INCR', KEYS[2 * i])
end
return {0, 0}
`;

// KEYS as above; ARGV: lock-out, then allowances. A scope whose counted attempts reached its allowance
// is locked for a fixed time that later attempts do not extend, and starts counting afresh after.
const LOCK_SPENT = `
for i = 1, #KEYS / 2 do
  if tonumber(redis.call('GET', KEYS[2 * i]) or '0') >= tonumber(ARGV[1 + i]) then
    redis.call('SET', KEYS[2 * i - 1], '1', 'PX', ARGV[1], 'NX')
    redis.call('DEL', KEYS[2 * i])
  end
end
return 0
`;

// KEYS: each scope's failure counter, then the one to forget (account and IP).
const REFUND = `
for i = 1, #KEYS - 1 do
  if tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
end
redis.call('DEL', KEYS[#KEYS])
return 0
`;

export class RateLimited extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(ERROR_CODE.RATE_LIMITED, 429, message);
  }
}

function unavailable(): AppError {
  return new AppError(
    ERROR_CODE.UNAVAILABLE,
    503,
    'Sign-in is temporarily unavailable, please try again shortly',
  );
}

export class LoginGuard {
  constructor(
    private readonly redis: Redis,
    private readonly limits: GuardLimits,
  ) {}

  private scopes(address: string, account: string): Scope[] {
    const ip = addressBudgetKey(address);
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

  /**
   * Counts this attempt in every scope before the password is checked, in one atomic step, and throws
   * 429 when a scope is locked out or its allowance is already taken by attempts in flight. So however
   * many attempts arrive at once, no more than the allowance reach the password check. The caller
   * reports the outcome with `fail` or `succeed`.
   */
  async reserve(ip: string, account: string): Promise<void> {
    const scopes = this.scopes(ip, account);
    if (scopes.length === 0) return;
    let reply: [number, number];
    try {
      reply = (await this.redis.eval(
        RESERVE,
        scopes.length * 2,
        ...scopes.flatMap((s) => [lockKey(s), failKey(s)]),
        this.limits.windowMs,
        this.limits.lockoutMs,
        ...scopes.map((s) => s.max),
      )) as [number, number];
    } catch {
      throw unavailable();
    }
    const [refusedBy, ttl] = reply;
    if (refusedBy > 0) {
      const seconds = Math.max(1, Math.ceil(ttl / 1000));
      throw new RateLimited(scopes[refusedBy - 1]!.message(seconds), seconds);
    }
  }

  /** A failed attempt (already counted): a scope whose allowance is used up is locked out. */
  async fail(ip: string, account: string): Promise<void> {
    const scopes = this.scopes(ip, account);
    if (scopes.length === 0) return;
    try {
      await this.redis.eval(
        LOCK_SPENT,
        scopes.length * 2,
        ...scopes.flatMap((s) => [lockKey(s), failKey(s)]),
        this.limits.lockoutMs,
        ...scopes.map((s) => s.max),
      );
    } catch {
      throw unavailable();
    }
  }

  /** A right password: its attempt is given back, and this IP's failures for the account forgotten. */
  async succeed(ip: string, account: string): Promise<void> {
    const scopes = this.scopes(ip, account);
    await this.redis
      .eval(
        REFUND,
        scopes.length + 1,
        ...scopes.map(failKey),
        `${PREFIX}fail:acctip:${account}:${addressBudgetKey(ip)}`,
      )
      .catch(() => undefined);
  }

  /** Counts a registration from this IP; throws 429 past the limit for the window. */
  async countRegistration(ip: string): Promise<void> {
    const max = this.limits.maxRegistrationsPerIp;
    if (max <= 0) return;
    const counter = `${PREFIX}register:${addressBudgetKey(ip)}`;
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
