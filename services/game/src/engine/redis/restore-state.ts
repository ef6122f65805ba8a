// Restoring the round state from Postgres (after Redis lost it, or came back older than Postgres): the
// Lua script and the decoder of its reply.

/**
 * Restores the round state rebuilt from Postgres. With no stale epoch given, only when the state is
 * missing (another instance may have restored it first); with one, only while Redis still holds that
 * epoch, and then the whole stale hash (users and journal included) and the applied purchases go first,
 * so every user is loaded again from Postgres.
 * KEYS: game hash, purchases. ARGV: round, clicks, pot, epoch, lcu, lcn, lwu, lwn ('' = none),
 * generation, stale epoch ('' = none).
 */
export const RESTORE_STATE = `
if ARGV[10] == '' then
  if redis.call('HEXISTS', KEYS[1], 'round') == 1 then return 0 end
else
  if redis.call('HGET', KEYS[1], 'epoch') ~= ARGV[10] then return 0 end
  redis.call('DEL', KEYS[1], KEYS[2])
end
redis.call('HSET', KEYS[1], 'round', ARGV[1], 'clicks', ARGV[2], 'pot', ARGV[3], 'epoch', ARGV[4], 'seq', 0, 'fseq', 0, 'gen', ARGV[9])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'lcu', ARGV[5], 'lcn', ARGV[6]) end
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'lwu', ARGV[7], 'lwn', ARGV[8]) end
return 1
`;

/** True when this call restored the state; false when another instance had restored it first. */
export function decodeRestoreStateReply(reply: number): boolean {
  return Number(reply) === 1;
}
