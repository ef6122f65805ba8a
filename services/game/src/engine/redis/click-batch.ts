// The click batch: one Lua script per batch of clicks, and the one function that decodes its reply.
import { USER_RECORD_LUA } from './user-record.js';
import type { WinRecord } from '../journal-types.js';

/**
 * A batch of clicks, in order. For each: rate limit, right to click (role, pass, purchased then granted
 * balance), spend, counter + 1, last clicker, milestone reward, and at the target the round closes.
 * The state and the users share one hash, so a batch reads everything with one HMGET and writes it back
 * with one HSET (the journal entry included), whatever its size: three Redis commands per batch.
 * KEYS: game hash (state, journal and users), then one rate bucket per client address in the batch.
 * ARGV: now (ms), target, rate per second per user, rate per second per address (0 = none), milestones
 * "at:reward,...", the most journal entries Redis may hold unflushed (0 = no bound), the deadline (ms, by
 * Redis's clock; 0 = none) after which the batch is not run (its caller has answered 503), then for each click
 * its user id, the number of its address's bucket among the KEYS after the first (0 = no address) and
 * its token's security version (a token older than the record's `securityVersion` is refused).
 * Replies { -1 } when the state is missing (Redis lost its data: rebuild first), { -2 } when the journal
 * holds the most entries it may (Postgres is not taking them: nothing is counted), { -3 } when it runs past
 * its deadline (Redis stalled with the call queued: nothing is counted), else a flat array that
 * decodeClickBatchReply reads: HEADER fields, then CLICK_FIELDS per click.
 * An address bucket is a string "tokens:ms" that expires once it would be full again.
 */
export const CLICK_BATCH = `${USER_RECORD_LUA}
local H = KEYS[1]
local deadline = tonumber(ARGV[7])
if deadline > 0 then
  local t = redis.call('TIME')
  if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > deadline then return {-3} end
end
local n = (#ARGV - 7) / 3
local ids, seen = {}, {}
for i = 1, n do
  local uid = ARGV[5 + 3 * i]
  if not seen[uid] then seen[uid] = true; ids[#ids + 1] = uid end
end
local st = redis.call('HMGET', H, 'round', 'clicks', 'pot', 'epoch', 'seq', 'lwu', 'lwn', 'fseq', unpack(ids))
if not st[1] then return {-1} end
local maxBacklog = tonumber(ARGV[6])
if maxBacklog > 0 and tonumber(st[5]) - tonumber(st[8] or '0') >= maxBacklog then return {-2} end
local round = tonumber(st[1])
local clicks = tonumber(st[2])
local pot = tonumber(st[3])
local epoch = st[4]
local seq = tonumber(st[5])
local now = tonumber(ARGV[1])
local target = tonumber(ARGV[2])
local rate = tonumber(ARGV[3])
local ipRate = tonumber(ARGV[4])
local miles = {}
for at, reward in string.gmatch(ARGV[5], '(%d+):(%d+)') do miles[tonumber(at)] = tonumber(reward) end
local buckets = {}
for k = 2, #KEYS do
  local raw = redis.call('GET', KEYS[k])
  local b = { tokens = ipRate, at = now }
  if raw then
    local tokens, at = string.match(raw, '^([%d.]+):(%d+)$')
    b.tokens, b.at = tonumber(tokens), tonumber(at)
  end
  if now > b.at then
    b.tokens = math.min(ipRate, b.tokens + (now - b.at) * ipRate / 1000)
    b.at = now
  end
  buckets[k - 1] = b
end
local users = {}
for j, uid in ipairs(ids) do
  local u = readUser(st[8 + j])
  u.tokens = u.tokens or rate
  u.tokensAt = u.tokensAt or now
  users[uid] = u
end
-- The reply's header: status, wins json, round, counter, pot, last clicker's name, last winner's name.
local out = {1, '', 0, 0, 0, '', ''}
local segs = {}
local seg
local wins = {}
local accepted = 0
local lcu, lcn = nil, nil
local function newseg()
  seg = { r = round, pos = clicks, n = 0, spends = {}, rewards = {} }
  segs[#segs + 1] = seg
end
newseg()
for i = 1, n do
  local uid = ARGV[5 + 3 * i]
  local b = buckets[tonumber(ARGV[6 + 3 * i])]
  local u = users[uid]
  local status, ordinal, clickRound, balance, reward, won, purchased = 0, 0, round, 0, 0, 0, 0
  if u.deleted == 1 then
    status = 5
  elseif u.suspended == 1 then
    -- An admin's suspension: refused before the rate limit, so its clicks write nothing.
    status = 7
  elseif tonumber(ARGV[7 + 3 * i]) < u.securityVersion then
    -- A token signed before the account's last security event (a reset, sign out everywhere...).
    status = 8
  elseif u.loaded ~= 1 then
    status = 4
  else
    if now > u.tokensAt then
      u.tokens = math.min(rate, u.tokens + (now - u.tokensAt) * rate / 1000)
      u.tokensAt = now
    end
    u.dirty = true
    if u.tokens < 1 then
      status = 3
    elseif b and b.tokens < 1 then
      status = 6
    else
      u.tokens = u.tokens - 1
      if b then
        b.tokens = b.tokens - 1
        b.dirty = true
      end
      local spentP, spentG = 0, 0
      if privileged(u, round) then
        status = 1
      elseif u.purchasedRound == round and u.purchased > 0 then
        u.purchased = u.purchased - 1
        spentP = 1
        status = 1
      elseif u.granted > 0 then
        u.granted = u.granted - 1
        spentG = 1
        status = 1
      else
        status = 2
      end
      if status == 1 then
        accepted = accepted + 1
        clicks = clicks + 1
        ordinal = clicks
        seg.pos = clicks
        seg.last = uid
        seg.n = seg.n + 1
        lcu, lcn = uid, u.name
        u.journalSeq = seq + 1
        if spentP + spentG > 0 then
          local s = seg.spends[uid]
          if not s then s = {0, 0}; seg.spends[uid] = s end
          s[1] = s[1] + spentP
          s[2] = s[2] + spentG
        end
        local m = miles[clicks]
        if m then
          reward = m
          u.granted = u.granted + m
          seg.rewards[uid] = (seg.rewards[uid] or 0) + m
        end
        if clicks >= target then
          won = 1
          local w = { round = round, userId = uid, username = u.name or '', potCents = pot, clicks = clicks, at = now, epoch = epoch }
          seg.win = w
          wins[#wins + 1] = w
          st[6], st[7] = uid, u.name or ''
          round = round + 1
          clicks = 0
          pot = 0
          newseg()
        end
      end
      if privileged(u, round) then
        balance = -1
      else
        balance = u.granted
        if u.purchasedRound == round then
          balance = balance + u.purchased
          purchased = u.purchased
        end
      end
    end
  end
  out[#out + 1] = status
  out[#out + 1] = ordinal
  out[#out + 1] = clickRound
  out[#out + 1] = balance
  out[#out + 1] = reward
  out[#out + 1] = won
  out[#out + 1] = purchased
end
local writes = {}
for uid, u in pairs(users) do
  if u.dirty then
    writes[#writes + 1] = uid
    writes[#writes + 1] = writeUser(u)
  end
end
if accepted > 0 then
  local journal = {}
  for _, s in ipairs(segs) do
    if s.n > 0 or s.win then journal[#journal + 1] = s end
  end
  seq = seq + 1
  local w = #writes
  writes[w + 1], writes[w + 2] = 'j:' .. seq, epoch .. ':' .. seq .. ':' .. cjson.encode({ segs = journal, t = now })
  w = w + 2
  writes[w + 1], writes[w + 2], writes[w + 3], writes[w + 4] = 'round', round, 'clicks', clicks
  writes[w + 5], writes[w + 6], writes[w + 7], writes[w + 8] = 'pot', pot, 'seq', seq
  writes[w + 9], writes[w + 10], writes[w + 11], writes[w + 12] = 'lcu', lcu, 'lcn', lcn or ''
  if #wins > 0 then
    writes[w + 13], writes[w + 14], writes[w + 15], writes[w + 16] = 'lwu', st[6], 'lwn', st[7]
    out[2] = cjson.encode(wins)
  end
end
out[3], out[4], out[5] = round, clicks, pot
if lcu then out[6] = lcn or '' end
if st[6] then out[7] = st[7] or '' end
-- Users, state and the journal entry in one write.
if #writes > 0 then redis.call('HSET', H, unpack(writes)) end
for k, b in pairs(buckets) do
  if b.dirty then
    redis.call('SET', KEYS[k + 1], string.format('%.3f:%d', b.tokens, b.at), 'PX', math.ceil((ipRate - b.tokens) * 1000 / ipRate) + 1)
  end
end
return out
`;

/** What the script decided for one click. */
export type ClickStatus =
  | 'accepted'
  | 'no_clicks'
  | 'rate_limited'
  | 'user_not_loaded'
  | 'deleted_user'
  | 'address_rate_limited'
  | 'suspended'
  | 'stale_token';

/** The script's status numbers, by name. */
const STATUS_BY_CODE: Record<number, ClickStatus> = {
  1: 'accepted',
  2: 'no_clicks',
  3: 'rate_limited',
  4: 'user_not_loaded',
  5: 'deleted_user',
  6: 'address_rate_limited',
  7: 'suspended',
  8: 'stale_token',
};

export interface ClickResult {
  status: ClickStatus;
  /** The click's ordinal in its round (accepted clicks only; 0 otherwise). */
  ordinal: number;
  round: number;
  /** Balance after the click; null = unlimited. */
  balance: number | null;
  /** The part of the balance bought for this round (0 when unlimited). */
  purchased: number;
  /** Free clicks the click earned at a milestone. */
  reward: number;
  won: boolean;
}

/** The round state right after the batch, so the game can publish it without reading it back. */
export interface StateAfterBatch {
  round: number;
  globalClicks: number;
  potCents: number;
  /** The last clicker's name, when the batch accepted a click ('' = no name). */
  lastClickerName: string | null;
  /** The last winner's name ('' = no name; null = no winner yet). */
  lastWinnerName: string | null;
}

export type ClickBatchReply =
  | { stateMissing: true; journalFull: false; expired?: false }
  | { journalFull: true; stateMissing: false; expired?: false }
  | { expired: true; journalFull: false; stateMissing: false }
  | {
      expired?: false;
      journalFull: false;
      stateMissing: false;
      wins: WinRecord[];
      state: StateAfterBatch;
      clicks: ClickResult[];
    };

/** Fields before the per-click results: status, wins, round, counter, pot, last clicker, last winner. */
const HEADER = 7;
/** Fields per click: status, ordinal, round, balance, reward, won, purchased. */
const CLICK_FIELDS = 7;

export function decodeClickBatchReply(reply: (number | string)[], clickCount: number): ClickBatchReply {
  if (Number(reply[0]) === -1) return { stateMissing: true, journalFull: false };
  if (Number(reply[0]) === -2) return { journalFull: true, stateMissing: false };
  if (Number(reply[0]) === -3) return { expired: true, journalFull: false, stateMissing: false };
  if (reply.length !== HEADER + clickCount * CLICK_FIELDS)
    throw new Error(`click batch reply has ${reply.length} fields for ${clickCount} clicks`);
  const [, wins, round, globalClicks, potCents, lastClicker, lastWinner] = reply;
  const clicks: ClickResult[] = [];
  for (let i = 0; i < clickCount; i++) {
    const [status, ordinal, clickRound, balance, reward, won, purchased] = reply
      .slice(HEADER + i * CLICK_FIELDS, HEADER + (i + 1) * CLICK_FIELDS)
      .map(Number) as [number, number, number, number, number, number, number];
    clicks.push({
      status: STATUS_BY_CODE[status] ?? 'user_not_loaded',
      ordinal,
      round: clickRound,
      balance: balance < 0 ? null : balance,
      reward,
      won: won === 1,
      purchased,
    });
  }
  return {
    stateMissing: false,
    journalFull: false,
    wins: typeof wins === 'string' && wins !== '' ? (JSON.parse(wins) as WinRecord[]) : [],
    state: {
      round: Number(round),
      globalClicks: Number(globalClicks),
      potCents: Number(potCents),
      lastClickerName: typeof lastClicker === 'string' && lastClicker !== '' ? lastClicker : null,
      lastWinnerName: typeof lastWinner === 'string' && lastWinner !== '' ? lastWinner : null,
    },
    clicks,
  };
}
