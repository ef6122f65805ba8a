// A click batch that Redis runs after its caller gave up on it (Redis stalled with the call queued; the
// clicks were answered 503) counts nothing: the script compares its deadline with Redis's clock first.
import { describe, expect, it } from 'vitest';
import { SCRIPT_ROUND, useScriptHash } from './scripts.js';

const hash = 'test:click-deadline';

describe('the click batch deadline', () => {
  const t = useScriptHash(hash);

  async function clickWithDeadline(deadline: number) {
    return t.scripts.clickBatch([hash], [Date.now(), 1000, 10, 0, '', 0, deadline, 'u1', 0, 0], 1);
  }

  it('runs before its deadline, and past it counts and spends nothing', async () => {
    await t.redis.hset(hash, { round: SCRIPT_ROUND, clicks: 0, pot: 0, epoch: 'e1', seq: 0 });
    await t.redis.hset(hash, 'u1', JSON.stringify({ loaded: 1, version: 1, granted: 5, passRound: 0 }));

    const late = await clickWithDeadline((await t.scripts.time()) - 1);
    expect(late).toMatchObject({ expired: true });
    expect(await t.redis.hmget(hash, 'clicks', 'seq')).toEqual(['0', '0']);
    expect(JSON.parse((await t.redis.hget(hash, 'u1'))!)).toMatchObject({ granted: 5 });

    const inTime = await clickWithDeadline((await t.scripts.time()) + 60_000);
    expect(inTime.expired).toBeFalsy();
    expect(!inTime.expired && !inTime.stateMissing && !inTime.journalFull && inTime.clicks[0]).toMatchObject({
      status: 'accepted',
      ordinal: 1,
      balance: 4,
    });
    // No deadline (0) until the game has measured Redis's clock.
    expect((await clickWithDeadline(0)).expired).toBeFalsy();
  });
});
