// Restoring the round state after Redis lost it: the Lua script and the decoder of its reply.

/**
 * Restores the round state rebuilt from Postgres, unless another instance restored it first.
 * KEYS: game hash. ARGV: round, clicks, pot, epoch, lcu, lcn, lwu, lwn ('' = none).
 */
export const RESTORE_STATE = `
if redis.call('HEXISTS', KEYS[1], 'round') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'round', ARGV[1], 'clicks', ARGV[2], 'pot', ARGV[3], 'epoch', ARGV[4], 'seq', 0, 'fseq', 0)
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'lcu', ARGV[5], 'lcn', ARGV[6]) end
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'lwu', ARGV[7], 'lwn', ARGV[8]) end
return 1
`;

/** True when this call restored the state; false when another instance had restored it first. */
export function decodeRestoreStateReply(reply: number): boolean {
  return Number(reply) === 1;
}
