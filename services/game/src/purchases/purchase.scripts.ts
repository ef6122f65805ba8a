// Applying a purchase: the Lua script and the one function that decodes its reply.
import { USER_RECORD_LUA } from '../engine/redis/user-record.js';

/**
 * Applies a completed purchase once: clicks for the current round (or the pass for it) and the pot share.
 * KEYS: game hash (state, journal, users), purchases. ARGV: purchaseId, userId, clicks (0 for the pass),
 * unlimited (1/0), potShareCents, packId. Replies { 1, round } applied now, { 0, round } applied before,
 * { -1 } no state, { -2 } user not loaded.
 */
export const APPLY_PURCHASE = `${USER_RECORD_LUA}
local H, P = KEYS[1], KEYS[2]
local st = redis.call('HMGET', H, 'round', 'epoch', 'seq')
if not st[1] then return {-1} end
local done = redis.call('HGET', P, ARGV[1])
if done then return {0, tonumber(done)} end
local u = readUser(redis.call('HGET', H, ARGV[2]))
if u.loaded ~= 1 then return {-2} end
local round = tonumber(st[1])
local clicks = tonumber(ARGV[3])
local seq = tonumber(st[3]) + 1
if u.deleted ~= 1 then
  if ARGV[4] == '1' then
    u.passRound = round
  elseif u.purchasedRound == round then
    u.purchased = u.purchased + clicks
  else
    u.purchasedRound = round
    u.purchased = clicks
  end
  u.journalSeq = seq
  redis.call('HSET', H, ARGV[2], writeUser(u))
end
redis.call('HINCRBY', H, 'pot', tonumber(ARGV[5]))
redis.call('HSET', P, ARGV[1], round)
local purchase = { id = ARGV[1], userId = ARGV[2], round = round, clicks = clicks, unlimited = ARGV[4] == '1', potShareCents = tonumber(ARGV[5]), packId = ARGV[6] }
redis.call('HSET', H, 'seq', seq, 'j:' .. seq, st[2] .. ':' .. seq .. ':' .. cjson.encode({ purchase = purchase }))
return {1, round}
`;

export type ApplyPurchaseReply =
  | { outcome: 'applied' | 'applied_before'; round: number }
  | { outcome: 'state_missing' }
  | { outcome: 'user_not_loaded' };

export function decodeApplyPurchaseReply(reply: number[]): ApplyPurchaseReply {
  const [code, round] = reply.map(Number);
  if (code === 1) return { outcome: 'applied', round: round! };
  if (code === 0) return { outcome: 'applied_before', round: round! };
  if (code === -1) return { outcome: 'state_missing' };
  if (code === -2) return { outcome: 'user_not_loaded' };
  throw new Error(`unexpected apply-purchase reply ${JSON.stringify(reply)}`);
}
