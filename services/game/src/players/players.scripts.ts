// Loading users into Redis and following auth's changes: the Lua scripts and their reply decoders.
import { USER_RECORD_LUA } from '../engine/redis/user-record.js';

/**
 * Loads a user's balances from Postgres figures, only if Redis does not hold them yet (Redis is ahead of
 * Postgres while the journal is unflushed, so it is never overwritten). Role, name, deletion and
 * suspension are set when this version is newer than the one held.
 * KEYS: game hash. ARGV: userId, version, role, name ('' none), deleted (1/0), granted, purchasedRound,
 * purchased, passRound, now (ms), sign-up clicks granted (1/0), suspended (1/0), suspension reason,
 * security version.
 * Replies 1 when it changed the record, 0 when Redis already held all of it.
 */
export const LOAD_USER = `${USER_RECORD_LUA}
local u = readUser(redis.call('HGET', KEYS[1], ARGV[1]))
local v = tonumber(ARGV[2])
local changed = false
if u.loaded ~= 1 then
  u.loaded = 1
  u.granted = tonumber(ARGV[6])
  u.purchasedRound = tonumber(ARGV[7])
  u.purchased = tonumber(ARGV[8])
  u.passRound = tonumber(ARGV[9])
  u.loadedAt = tonumber(ARGV[10])
  u.signupGranted = tonumber(ARGV[11])
  changed = true
end
if v > u.version then
  u.version = v
  u.role = ARGV[3]
  if ARGV[4] == '' then u.name = nil else u.name = ARGV[4] end
  if ARGV[5] == '1' then u.deleted = 1 end
  setAccess(u, ARGV[12], ARGV[13], ARGV[14])
  changed = true
end
if changed then redis.call('HSET', KEYS[1], ARGV[1], writeUser(u)) end
return changed and 1 or 0
`;

/**
 * A role, name, deletion or suspension from auth: applied when newer than what Redis holds (it may create
 * a partial user record, completed by LOAD_USER). The state's last clicker and last winner names follow a
 * rename.
 * KEYS: game hash. ARGV: version, role, name ('' none), deleted (1/0), userId, suspended (1/0), reason,
 * security version.
 * Replies 1 when applied, 0 when Redis held this version or a newer one.
 */
export const UPDATE_USER_META = `${USER_RECORD_LUA}
local H, uid = KEYS[1], ARGV[5]
local u = readUser(redis.call('HGET', H, uid))
local v = tonumber(ARGV[1])
if v <= u.version then return 0 end
u.version = v
u.role = ARGV[2]
if ARGV[3] == '' then u.name = nil else u.name = ARGV[3] end
if ARGV[4] == '1' then u.deleted = 1 end
setAccess(u, ARGV[6], ARGV[7], ARGV[8])
redis.call('HSET', H, uid, writeUser(u))
local st = redis.call('HMGET', H, 'lcu', 'lwu')
if st[1] == uid then
  if ARGV[4] == '1' then redis.call('HDEL', H, 'lcu', 'lcn') else redis.call('HSET', H, 'lcn', ARGV[3]) end
end
if st[2] == uid then
  if ARGV[4] == '1' then redis.call('HDEL', H, 'lwu', 'lwn') else redis.call('HSET', H, 'lwn', ARGV[3]) end
end
return 1
`;

/**
 * Grants a user's sign-up clicks once: only to a loaded record that says they are still to come (a record
 * without the mark has them), journaled like a purchase so Postgres gets the clicks and the mark together.
 * KEYS: game hash. ARGV: userId, clicks. Replies 1 granted now, 0 granted before (or deleted), -1 no
 * state, -2 user not loaded.
 */
export const GRANT_SIGNUP_CLICKS = `${USER_RECORD_LUA}
local H = KEYS[1]
local st = redis.call('HMGET', H, 'round', 'epoch', 'seq')
if not st[1] then return -1 end
local u = readUser(redis.call('HGET', H, ARGV[1]))
if u.loaded ~= 1 then return -2 end
if u.signupGranted ~= 0 or u.deleted == 1 then return 0 end
local seq = tonumber(st[3]) + 1
local clicks = tonumber(ARGV[2])
u.granted = u.granted + clicks
u.signupGranted = 1
u.journalSeq = seq
redis.call('HSET', H, ARGV[1], writeUser(u))
local grant = { userId = ARGV[1], clicks = clicks }
redis.call('HSET', H, 'seq', seq, 'j:' .. seq, st[2] .. ':' .. seq .. ':' .. cjson.encode({ grant = grant }))
return 1
`;

export type GrantSignupReply = 'granted' | 'granted_before' | 'state_missing' | 'user_not_loaded';

export function decodeGrantSignupReply(reply: number): GrantSignupReply {
  const code = Number(reply);
  if (code === 1) return 'granted';
  if (code === 0) return 'granted_before';
  if (code === -1) return 'state_missing';
  if (code === -2) return 'user_not_loaded';
  throw new Error(`unexpected grant-signup reply ${JSON.stringify(reply)}`);
}

/** LOAD_USER's and UPDATE_USER_META's reply: did the record change. */
export function decodeChangedReply(reply: number): boolean {
  return Number(reply) === 1;
}

/**
 * The bound on users held in Redis: scans a slice of the game hash (HSCAN from `cursor`) and removes the
 * users idle since `cutoff` whose every change the journal has written to Postgres (their journalSeq is at
 * or below fseq; a record that does not say which entry changed it last waits for the whole journal).
 * The next click or look-up of an evicted user loads it from Postgres again, as after a Redis loss.
 * KEYS: game hash. ARGV: cursor, how many fields to scan, cutoff (ms).
 * Replies { next cursor ('0' = the scan went round), users evicted }.
 */
export const EVICT_IDLE_USERS = `${USER_RECORD_LUA}
local H = KEYS[1]
local st = redis.call('HMGET', H, 'seq', 'fseq')
local seq, fseq = tonumber(st[1] or '0'), tonumber(st[2] or '0')
local cutoff = tonumber(ARGV[3])
local notUsers = { round = 1, clicks = 1, pot = 1, epoch = 1, gen = 1, seq = 1, fseq = 1, flk = 1, lcu = 1, lcn = 1, lwu = 1, lwn = 1 }
local scan = redis.call('HSCAN', H, ARGV[1], 'COUNT', tonumber(ARGV[2]))
local evict = {}
local fields = scan[2]
for i = 1, #fields, 2 do
  local field = fields[i]
  if not notUsers[field] and string.sub(field, 1, 2) ~= 'j:' then
    local u = readUser(fields[i + 1])
    local lastSeen = math.max(u.tokensAt or 0, u.loadedAt or 0)
    if lastSeen < cutoff and (u.journalSeq or seq) <= fseq then evict[#evict + 1] = field end
  end
end
if #evict > 0 then redis.call('HDEL', H, unpack(evict)) end
return { scan[1], #evict }
`;

export interface EvictIdleUsersReply {
  /** Where the next slice starts; '0' when the scan has been round the whole hash. */
  cursor: string;
  evicted: number;
}

export function decodeEvictIdleUsersReply(reply: (string | number)[]): EvictIdleUsersReply {
  return { cursor: String(reply[0]), evicted: Number(reply[1]) };
}
