// Taking back a refunded purchase: the Lua script and the one function that decodes its reply.
import { USER_RECORD_LUA } from '../engine/redis/user-record.js';

/**
 * Takes back, once, what a refunded purchase gave, when its round is still in play: the buyer's unspent
 * purchased clicks of that round (at most the pack's, never below zero) or the round's pass, and the pot
 * share (at most the pot). A round already over gives nothing back: its clicks expired with it and its
 * pot went to the winner. Journaled like a purchase; the answer is kept in the purchases hash under
 * `takeback:<purchaseId>` and repeated to every later call (a rebuild drops both together).
 * KEYS: game hash, purchases. ARGV: purchaseId, userId, the purchase's round, clicks (0 for the pass),
 * unlimited (1/0), potShareCents.
 * Replies { 1, round, inPlay, clicks, pass, potCents } taken now, { 0, ... } taken before, { -1 } no
 * state, { -2 } user not loaded.
 */
export const TAKE_BACK_PURCHASE = `${USER_RECORD_LUA}
local H, P = KEYS[1], KEYS[2]
local st = redis.call('HMGET', H, 'round', 'epoch', 'seq', 'pot')
if not st[1] then return {-1} end
local mark = 'takeback:' .. ARGV[1]
local done = redis.call('HGET', P, mark)
if done then
  local d = cjson.decode(done)
  return {0, d.round, d.inPlay, d.clicks, d.pass, d.pot}
end
local u = readUser(redis.call('HGET', H, ARGV[2]))
if u.loaded ~= 1 then return {-2} end
local round = tonumber(ARGV[3])
local inPlay, clicks, pass, pot = 0, 0, 0, 0
local seq = tonumber(st[3]) + 1
if round == tonumber(st[1]) then
  inPlay = 1
  if ARGV[5] == '1' then
    if u.passRound == round then
      u.passRound = 0
      pass = 1
    end
  elseif u.purchasedRound == round then
    clicks = math.max(0, math.min(tonumber(ARGV[4]), u.purchased))
    u.purchased = u.purchased - clicks
  end
  if clicks > 0 or pass == 1 then
    u.journalSeq = seq
    redis.call('HSET', H, ARGV[2], writeUser(u))
  end
  pot = math.max(0, math.min(tonumber(ARGV[6]), tonumber(st[4] or '0')))
  if pot > 0 then redis.call('HINCRBY', H, 'pot', -pot) end
end
local takeback = { id = ARGV[1], userId = ARGV[2], round = round, roundInPlay = inPlay == 1, clicks = clicks, pass = pass == 1, potCents = pot }
redis.call('HSET', H, 'seq', seq, 'j:' .. seq, st[2] .. ':' .. seq .. ':' .. cjson.encode({ takeback = takeback }))
redis.call('HSET', P, mark, cjson.encode({ round = round, inPlay = inPlay, clicks = clicks, pass = pass, pot = pot }))
return {1, round, inPlay, clicks, pass, pot}
`;

export interface TakeBackFigures {
  round: number;
  roundInPlay: boolean;
  clicks: number;
  pass: boolean;
  potCents: number;
}

export type TakeBackReply =
  | ({ outcome: 'taken' | 'taken_before' } & TakeBackFigures)
  | { outcome: 'state_missing' }
  | { outcome: 'user_not_loaded' };

export function decodeTakeBackReply(reply: number[]): TakeBackReply {
  const [code, round, inPlay, clicks, pass, pot] = reply.map(Number);
  if (code === 1 || code === 0)
    return {
      outcome: code === 1 ? 'taken' : 'taken_before',
      round: round!,
      roundInPlay: inPlay === 1,
      clicks: clicks!,
      pass: pass === 1,
      potCents: pot!,
    };
  if (code === -1) return { outcome: 'state_missing' };
  if (code === -2) return { outcome: 'user_not_loaded' };
  throw new Error(`unexpected take-back reply ${JSON.stringify(reply)}`);
}
