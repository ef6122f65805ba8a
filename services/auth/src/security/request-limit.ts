// Fixed-window limits for requests that send mail (password reset, verification resend): every scope is
// counted in one atomic Redis step before any work, so a burst in parallel cannot slip past the limit,
// and a refusal in one scope leaves the others uncounted. Counted whether or not the address has an
// account, so the limits reveal nothing.
import { ERROR_CODE } from '@omc/contracts';
import { AppError } from '@omc/service-kit';
import type { Redis } from 'ioredis';
import { RateLimited } from './login-guard.js';

const PREFIX = '{auth:limit}:';

// KEYS: counters; ARGV: window, then each counter's allowance. Returns {refused scope, ms left} or {0, 0}.
const COUNT = `
for i = 1, #KEYS do
  local used = tonumber(redis.call('GET', KEYS[i]) or '0')
  if used >= tonumber(ARGV[1 + i]) then
    local ttl = redis.call('PTTL', KEYS[i])
    if ttl < 0 then ttl = tonumber(ARGV[1]) end
    return {i, ttl}
  end
end
for i = 1, #KEYS do
  redis.call('SET', KEYS[i], 0, 'PX', ARGV[1], 'NX')
  redis.call('INCR', KEYS[i])
end
return {0, 0}
`;

export interface LimitScope {
  key: string;
  max: number;
  message: (seconds: number) => string;
}

export async function countRequest(redis: Redis, windowMs: number, scopes: LimitScope[]): Promise<void> {
  const active = scopes.filter((s) => s.max > 0);
  if (active.length === 0) return;
  let reply: [number, number];
  try {
    reply = (await redis.eval(
      COUNT,
      active.length,
      ...active.map((s) => PREFIX + s.key),
      windowMs,
      ...active.map((s) => s.max),
    )) as [number, number];
  } catch {
    throw new AppError(
      ERROR_CODE.UNAVAILABLE,
      503,
      'This is temporarily unavailable, please try again shortly',
    );
  }
  const [refused, ttl] = reply;
  if (refused > 0) {
    const seconds = Math.max(1, Math.ceil(ttl / 1000));
    throw new RateLimited(active[refused - 1]!.message(seconds), seconds);
  }
}
