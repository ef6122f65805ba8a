// The game's atomic steps in Redis. Each is one Lua script, so a step is all or nothing and no two steps
// interleave. Keys are always passed in KEYS (one hash tag), never built inside a script.

/**
 * A batch of clicks, in order. For each: rate limit, right to click (role, pass, purchased then granted
 * balance), spend, counter + 1, last clicker, milestone reward, and at the target the round closes.
 * The state and the users share one hash, so a batch reads everything with one HMGET and writes it back
 * with one HSET (the journal entry included), whatever its size: three Redis commands per batch.
 * KEYS: state, journal, users (the same hash as state), then one rate bucket per client address in the
 * batch. ARGV: now (ms), target, rate per second per user, rate per second per address (0 = none),
 * milestones "at:reward,...", then for each click its user id and the number of its address's bucket
 * among the KEYS after the first three (0 = no address).
 * Returns { 1, wins json or '', then the state after the batch: round, counter, pot, last clicker's name
 * and last winner's name ('' = none; the clicker's only when the batch accepted a click), then per click:
 * status, ordinal, round, balance after (-1 = unlimited), reward, won } or { -1 } when the state is
 * missing (Redis lost its data: rebuild first). The state lets the game publish without reading it back.
 * Status: 1 accepted, 2 no clicks left, 3 too fast, 4 user not loaded, 5 user deleted, 6 too fast from
 * that address. An address bucket is a string "tokens:ms" that expires once it would be full again.
 */
export const CLICK_BATCH = `
local S = KEYS[1]
local n = (#ARGV - 5) / 2
local ids, seen = {}, {}
for i = 1, n do
  local uid = ARGV[4 + 2 * i]
  if not seen[uid] then seen[uid] = true; ids[#ids + 1] = uid end
end
local st = redis.call('HMGET', S, 'round', 'clicks', 'pot', 'epoch', 'seq', 'lwu', 'lwn', unpack(ids))
if not st[1] then return {-1} end
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
for k = 4, #KEYS do
  local raw = redis.call('GET', KEYS[k])
  local b = { tb = ipRate, tt = now }
  if raw then
    local tb, tt = string.match(raw, '^([%d.]+):(%d+)$')
    b.tb, b.tt = tonumber(tb), tonumber(tt)
  end
  if now > b.tt then
    b.tb = math.min(ipRate, b.tb + (now - b.tt) * ipRate / 1000)
    b.tt = now
  end
  buckets[k - 3] = b
end
local users = {}
for j, uid in ipairs(ids) do
  local raw = st[7 + j]
  local r = raw and cjson.decode(raw) or {}
  r.g = r.g or 0
  r.pr = r.pr or 0
  r.p = r.p or 0
  r.pass = r.pass or 0
  r.tb = r.tb or rate
  r.tt = r.tt or now
  users[uid] = r
end
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
  local uid = ARGV[4 + 2 * i]
  local b = buckets[tonumber(ARGV[5 + 2 * i])]
  local u = users[uid]
  local status, ordinal, clickRound, balance, reward, won = 0, 0, round, 0, 0, 0
  if u.del == 1 then
    status = 5
  elseif u.ok ~= 1 then
    status = 4
  else
    if now > u.tt then
      u.tb = math.min(rate, u.tb + (now - u.tt) * rate / 1000)
      u.tt = now
    end
    u.dirty = true
    if u.tb < 1 then
      status = 3
    elseif b and b.tb < 1 then
      status = 6
    else
      u.tb = u.tb - 1
      if b then
        b.tb = b.tb - 1
        b.dirty = true
      end
      local privileged = u.role == 'admin' or u.role == 'superuser' or u.pass == round
      local spentP, spentG = 0, 0
      if privileged then
        status = 1
      elseif u.pr == round and u.p > 0 then
        u.p = u.p - 1
        spentP = 1
        status = 1
      elseif u.g > 0 then
        u.g = u.g - 1
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
        if spentP + spentG > 0 then
          local s = seg.spends[uid]
          if not s then s = {0, 0}; seg.spends[uid] = s end
          s[1] = s[1] + spentP
          s[2] = s[2] + spentG
        end
        local m = miles[clicks]
        if m then
          reward = m
          u.g = u.g + m
          seg.rewards[uid] = (seg.rewards[uid] or 0) + m
        end
        if clicks >= target then
          won = 1
          local w = { round = round, userId = uid, username = u.name or '', potCents = pot, clicks = clicks, at = now }
          seg.win = w
          wins[#wins + 1] = w
          st[6], st[7] = uid, u.name or ''
          round = round + 1
          clicks = 0
          pot = 0
          newseg()
        end
      end
      if u.role == 'admin' or u.role == 'superuser' or u.pass == round then
        balance = -1
      else
        balance = u.g
        if u.pr == round then balance = balance + u.p end
      end
    end
  end
  out[#out + 1] = status
  out[#out + 1] = ordinal
  out[#out + 1] = clickRound
  out[#out + 1] = balance
  out[#out + 1] = reward
  out[#out + 1] = won
end
local writes = {}
for uid, u in pairs(users) do
  if u.dirty then
    u.dirty = nil
    writes[#writes + 1] = uid
    writes[#writes + 1] = cjson.encode(u)
  end
end
if accepted > 0 then
  local journal = {}
  for _, s in ipairs(segs) do
    if s.n > 0 or s.win then journal[#journal + 1] = s end
  end
  seq = seq + 1
  local w = #writes
  writes[w + 1], writes[w + 2] = 'j:' .. seq, epoch .. ':' .. seq .. ':' .. cjson.encode({ segs = journal })
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
if #writes > 0 then redis.call('HSET', S, unpack(writes)) end
for k, b in pairs(buckets) do
  if b.dirty then
    redis.call('SET', KEYS[k + 3], string.format('%.3f:%d', b.tb, b.tt), 'PX', math.ceil((ipRate - b.tb) * 1000 / ipRate) + 1)
  end
end
return out
`;

/**
 * Applies a completed purchase once: clicks for the current round (or the pass for it) and the pot share.
 * KEYS: state, journal, purchases, users. ARGV: purchaseId, userId, clicks (0 for the pass), unlimited
 * (1/0), potShareCents, packId. Returns { 1, round } applied now, { 0, round } applied before, { -1 } no
 * state, { -2 } user not loaded.
 */
export const APPLY_PURCHASE = `
local st = redis.call('HMGET', KEYS[1], 'round', 'epoch', 'seq')
if not st[1] then return {-1} end
local done = redis.call('HGET', KEYS[3], ARGV[1])
if done then return {0, tonumber(done)} end
local raw = redis.call('HGET', KEYS[4], ARGV[2])
local u = raw and cjson.decode(raw) or {}
if u.ok ~= 1 then return {-2} end
local round = tonumber(st[1])
local clicks = tonumber(ARGV[3])
if u.del ~= 1 then
  if ARGV[4] == '1' then
    u.pass = round
  elseif u.pr == round then
    u.p = (u.p or 0) + clicks
  else
    u.pr = round
    u.p = clicks
  end
  redis.call('HSET', KEYS[4], ARGV[2], cjson.encode(u))
end
redis.call('HINCRBY', KEYS[1], 'pot', tonumber(ARGV[5]))
redis.call('HSET', KEYS[3], ARGV[1], round)
local seq = tonumber(st[3]) + 1
local purchase = { id = ARGV[1], userId = ARGV[2], round = round, clicks = clicks, unlimited = ARGV[4] == '1', potShareCents = tonumber(ARGV[5]), packId = ARGV[6] }
redis.call('HSET', KEYS[1], 'seq', seq, 'j:' .. seq, st[2] .. ':' .. seq .. ':' .. cjson.encode({ purchase = purchase }))
return {1, round}
`;

/**
 * Loads a user's balances from Postgres figures, only if Redis does not hold them yet (Redis is ahead of
 * Postgres while the journal is unflushed, so it is never overwritten). Role, name and deletion are set
 * when this version is newer than the one held.
 * KEYS: users. ARGV: userId, version, role, name ('' none), deleted (1/0), granted, purchasedRound,
 * purchased, passRound.
 */
export const LOAD_USER = `
local raw = redis.call('HGET', KEYS[1], ARGV[1])
local u = raw and cjson.decode(raw) or {}
local v = tonumber(ARGV[2])
local changed = false
if u.ok ~= 1 then
  u.ok = 1
  u.g = tonumber(ARGV[6])
  u.pr = tonumber(ARGV[7])
  u.p = tonumber(ARGV[8])
  u.pass = tonumber(ARGV[9])
  changed = true
end
if v > (u.v or 0) then
  u.v = v
  u.role = ARGV[3]
  if ARGV[4] == '' then u.name = nil else u.name = ARGV[4] end
  if ARGV[5] == '1' then u.del = 1 end
  changed = true
end
if changed then redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(u)) end
return 1
`;

/**
 * A role, name or deletion from auth: applied when newer than what Redis holds (it may create a partial
 * user record, completed by LOAD_USER). The state's last clicker and last winner names follow a rename.
 * KEYS: users, state. ARGV: version, role, name ('' none), deleted (1/0), userId.
 */
export const UPDATE_USER_META = `
local raw = redis.call('HGET', KEYS[1], ARGV[5])
local u = raw and cjson.decode(raw) or {}
local v = tonumber(ARGV[1])
if v <= (u.v or 0) then return 0 end
u.v = v
u.role = ARGV[2]
if ARGV[3] == '' then u.name = nil else u.name = ARGV[3] end
if ARGV[4] == '1' then u.del = 1 end
redis.call('HSET', KEYS[1], ARGV[5], cjson.encode(u))
local st = redis.call('HMGET', KEYS[2], 'lcu', 'lwu')
if st[1] == ARGV[5] then
  if ARGV[4] == '1' then redis.call('HDEL', KEYS[2], 'lcu', 'lcn') else redis.call('HSET', KEYS[2], 'lcn', ARGV[3]) end
end
if st[2] == ARGV[5] then
  if ARGV[4] == '1' then redis.call('HDEL', KEYS[2], 'lwu', 'lwn') else redis.call('HSET', KEYS[2], 'lwn', ARGV[3]) end
end
return 1
`;

/**
 * Restores the round state rebuilt from Postgres, unless another instance restored it first.
 * KEYS: state. ARGV: round, clicks, pot, epoch, lcu, lcn, lwu, lwn ('' = none).
 */
export const RESTORE_STATE = `
if redis.call('HEXISTS', KEYS[1], 'round') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'round', ARGV[1], 'clicks', ARGV[2], 'pot', ARGV[3], 'epoch', ARGV[4], 'seq', 0, 'fseq', 0)
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'lcu', ARGV[5], 'lcn', ARGV[6]) end
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'lwu', ARGV[7], 'lwn', ARGV[8]) end
return 1
`;

/**
 * One step of the journal flusher, in one call: removes the entries this flusher wrote to Postgres at its
 * previous step (up to seq `upto` of epoch `epoch`, nothing if Redis was rebuilt meanwhile) and advances
 * fseq, then takes the oldest unflushed entries (fields j:<seq> of the game hash, after fseq). The lock
 * (field flk = "token:expires ms") keeps one flusher at a time: renewed while entries flow, released when
 * the journal is empty, and taken over once expired (Postgres' cursor keeps a late flusher harmless).
 * Under load a step is five commands (the call, HMGET, HDEL, HMGET, HSET); when idle, two.
 * KEYS: game hash. ARGV: token, now (ms), lock ms, max entries (0: only trim and release), epoch
 * ('' none), upto (0 none). Returns the entries, or { -1 } when another flusher holds the lock.
 */
export const JOURNAL_STEP = `
local H = KEYS[1]
local token, now = ARGV[1], tonumber(ARGV[2])
local st = redis.call('HMGET', H, 'epoch', 'seq', 'fseq', 'flk')
if not st[1] then return {} end
local holder, expires = nil, 0
if st[4] then
  local t, e = string.match(st[4], '^(.*):(%d+)$')
  holder, expires = t, tonumber(e)
end
if holder and holder ~= token and expires >= now then return {-1} end
local seq = tonumber(st[2])
local fseq = tonumber(st[3] or '0')
local trimmed = false
if ARGV[5] == st[1] then
  local upto = math.min(tonumber(ARGV[6]), seq)
  if upto > fseq then
    local fields = {}
    for s = fseq + 1, upto do fields[#fields + 1] = 'j:' .. s end
    redis.call('HDEL', H, unpack(fields))
    fseq = upto
    trimmed = true
  end
end
local out = {}
local max = tonumber(ARGV[4])
if seq > fseq and max > 0 then
  local fields = {}
  for s = fseq + 1, math.min(seq, fseq + max) do fields[#fields + 1] = 'j:' .. s end
  local values = redis.call('HMGET', H, unpack(fields))
  for i = 1, #fields do
    if values[i] then out[#out + 1] = values[i] end
  end
end
if #out > 0 then
  redis.call('HSET', H, 'fseq', fseq, 'flk', token .. ':' .. (now + tonumber(ARGV[3])))
elseif trimmed or (holder == token and expires > 0) then
  redis.call('HSET', H, 'fseq', fseq, 'flk', token .. ':0')
end
return out
`;
