// The journal flusher's step on a real Redis: one flusher at a time, a crashed flusher's lock taken over
// once expired, entries removed only by the flusher that wrote them and only within the same epoch.
import { describe, expect, it } from 'vitest';
import { useScriptHash } from './scripts.js';

const HASH = '{omc:game}:journal-step-test';
const LOCK_MS = 2000;

describe('journal step', () => {
  const t = useScriptHash(HASH);
  const now = 1_000_000;

  /** A step as the flusher sends it: the entries it took, or 'locked' when another flusher holds the lock. */
  const step = async (token: string, at: number, max: number, written?: { epoch: string; upto: number }) => {
    const reply = await t.scripts.journalStep(HASH, [
      token,
      at,
      LOCK_MS,
      max,
      written?.epoch ?? '',
      written?.upto ?? 0,
    ]);
    return reply.lockedByAnother ? 'locked' : reply.entries;
  };

  const journal = async (count: number, epoch = 'e1') => {
    const fields: (string | number)[] = ['epoch', epoch, 'seq', count, 'fseq', 0];
    for (let s = 1; s <= count; s++) fields.push(`j:${s}`, `${epoch}:${s}:{}`);
    await t.redis.hset(HASH, ...fields);
  };

  it('takes the oldest entries, removes them at the next step, and releases the lock when the journal is empty', async () => {
    await journal(5);
    expect(await step('a', now, 3)).toEqual(['e1:1:{}', 'e1:2:{}', 'e1:3:{}']);
    // Written to Postgres; the next step removes those three and takes the rest.
    expect(await step('a', now + 100, 3, { epoch: 'e1', upto: 3 })).toEqual(['e1:4:{}', 'e1:5:{}']);
    expect(await t.redis.hmget(HASH, 'fseq', 'j:3', 'j:4')).toEqual(['3', null, 'e1:4:{}']);
    expect(await step('a', now + 200, 3, { epoch: 'e1', upto: 5 })).toEqual([]);
    expect(await t.redis.hget(HASH, 'fseq')).toBe('5');
    expect(await t.redis.hkeys(HASH)).not.toContain('j:5');
    // Released: another flusher takes the next entry at once.
    await t.redis.hset(HASH, 'seq', 6, 'j:6', 'e1:6:{}');
    expect(await step('b', now + 300, 3)).toEqual(['e1:6:{}']);
  });

  it('keeps a second flusher out while the first holds the lock, and lets it take over once the lock expired', async () => {
    await journal(2);
    expect(await step('a', now, 10)).toHaveLength(2);
    expect(await step('b', now + 100, 10)).toEqual('locked');
    // "a" crashed before writing: after the lock expires "b" takes the same entries.
    expect(await step('b', now + LOCK_MS + 1, 10)).toEqual(['e1:1:{}', 'e1:2:{}']);
    // "a" comes back late and would remove what it wrote: the lock is b's now, nothing is removed.
    expect(await step('a', now + LOCK_MS + 2, 10, { epoch: 'e1', upto: 2 })).toEqual('locked');
    expect(await t.redis.hget(HASH, 'fseq')).toBe('0');
    expect(await step('b', now + LOCK_MS + 3, 10, { epoch: 'e1', upto: 2 })).toEqual([]);
    expect(await t.redis.hget(HASH, 'fseq')).toBe('2');
  });

  it('removes nothing when Redis was rebuilt since the entries were taken (another epoch)', async () => {
    await journal(2, 'e1');
    expect(await step('a', now, 10)).toHaveLength(2);
    await t.redis.del(HASH);
    await journal(1, 'e2');
    expect(await step('a', now + 100, 10, { epoch: 'e1', upto: 2 })).toEqual(['e2:1:{}']);
    expect(await t.redis.hget(HASH, 'j:1')).toBe('e2:1:{}');
  });

  it('only removes and releases when asked for no entries (shutdown)', async () => {
    await journal(3);
    expect(await step('a', now, 2)).toHaveLength(2);
    expect(await step('a', now + 100, 0, { epoch: 'e1', upto: 2 })).toEqual([]);
    expect(await t.redis.hget(HASH, 'fseq')).toBe('2');
    expect(await step('b', now + 200, 10)).toEqual(['e1:3:{}']);
  });
});
