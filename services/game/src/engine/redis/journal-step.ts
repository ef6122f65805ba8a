// The journal flusher's step: the Lua script and the decoder of its reply.

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

export type JournalStepReply =
  | { lockedByAnother: true }
  | {
      lockedByAnother: false;
      /** Raw entries, "epoch:seq:json" (see parseJournalEntry). */ entries: string[];
    };

export function decodeJournalStepReply(reply: (string | number)[]): JournalStepReply {
  if (reply.length === 1 && Number(reply[0]) === -1) return { lockedByAnother: true };
  return { lockedByAnother: false, entries: reply.map(String) };
}
