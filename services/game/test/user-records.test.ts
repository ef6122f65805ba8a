// The users the game holds in Redis: named fields (records written before the names still count), and
// the bound: a user idle long enough, whose every change Postgres holds, leaves Redis and comes back
// from Postgres with the same balance at the next click.
import { createRedis, type Redis } from '@omc/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS } from '../src/engine/keys.js';
import { gameRedis } from '../src/engine/redis-commands.js';
import { decodeUserRecord } from '../src/engine/redis/user-record.js';
import { useScriptHash } from './scripts.js';
import { startGame, type Harness } from './support.js';

describe('eviction of idle users (the script)', () => {
  const HASH = '{omc:game}:eviction-test';
  const now = 10_000_000;
  const idleSince = now - 1000;
  const t = useScriptHash(HASH);

  const user = (fields: Record<string, unknown>) =>
    JSON.stringify({ loaded: 1, version: 1, granted: 3, ...fields });

  it('evicts the idle users Postgres is up to date on, and nothing else', async () => {
    await t.redis.hset(HASH, {
      round: 1,
      clicks: 7,
      pot: 0,
      epoch: 'e1',
      seq: 5,
      fseq: 3,
      lcu: 'flushed-idle',
      lcn: 'someone',
      'j:4': 'e1:4:{}',
      'j:5': 'e1:5:{}',
      'flushed-idle': user({ tokensAt: idleSince - 1, journalSeq: 3 }),
      'loaded-idle': user({ loadedAt: idleSince - 1 }),
      'unflushed-idle': user({ tokensAt: idleSince - 1, journalSeq: 4 }),
      recent: user({ tokensAt: idleSince + 1, journalSeq: 1 }),
      'old-format-idle': JSON.stringify({ ok: 1, v: 1, g: 3, tt: idleSince - 1 }),
    });
    expect(await t.scripts.evictIdleUsers(HASH, '0', 1000, idleSince)).toEqual({ cursor: '0', evicted: 1 });
    // A record that does not say which journal entry changed it last waits for the whole journal.
    expect(await t.redis.hexists(HASH, 'flushed-idle')).toBe(0);
    expect(await t.redis.hexists(HASH, 'loaded-idle')).toBe(1);
    expect(await t.redis.hexists(HASH, 'old-format-idle')).toBe(1);
    expect(await t.redis.hexists(HASH, 'unflushed-idle')).toBe(1);
    expect(await t.redis.hexists(HASH, 'recent')).toBe(1);

    await t.redis.hset(HASH, 'fseq', 5);
    await t.redis.hdel(HASH, 'j:4', 'j:5');
    expect(await t.scripts.evictIdleUsers(HASH, '0', 1000, idleSince)).toEqual({ cursor: '0', evicted: 3 });
    expect((await t.redis.hkeys(HASH)).sort()).toEqual(
      ['clicks', 'epoch', 'fseq', 'lcn', 'lcu', 'pot', 'recent', 'round', 'seq'].sort(),
    );
  });

  it('walks a large hash a slice at a time', async () => {
    await t.redis.hset(HASH, 'round', 1, 'seq', 0, 'fseq', 0);
    for (let i = 0; i < 600; i++) await t.redis.hset(HASH, `u${i}`, user({ loadedAt: 1 }));
    let cursor = '0';
    let evicted = 0;
    let slices = 0;
    do {
      const reply = await t.scripts.evictIdleUsers(HASH, cursor, 100, idleSince);
      cursor = reply.cursor;
      evicted += reply.evicted;
      slices++;
    } while (cursor !== '0' && slices < 100);
    expect(evicted).toBe(600);
    expect(slices).toBeGreaterThan(1);
    expect(await t.redis.hlen(HASH)).toBe(3);
  });
});

describe('users in the game hash', () => {
  let h: Harness;
  let redis: Redis;

  beforeAll(async () => {
    h = await startGame({
      name: 'user-records',
      env: { ROUND_TARGET: '100000', SIGNUP_FREE_CLICKS: '10', MILESTONES: '' },
    });
    redis = createRedis(h.config.REDIS_URL);
  });
  afterAll(async () => {
    redis?.disconnect();
    await h?.close();
  });

  it('brings an evicted user back from Postgres with the balance it had', async () => {
    const [player] = await h.registerUsers(1);
    for (let i = 0; i < 3; i++) expect((await h.click(player!)).statusCode).toBe(200);
    await h.flushJournal();
    // Everything about the player is in Postgres: as if an hour had passed, the player leaves Redis.
    const evicted = await gameRedis(redis).evictIdleUsers(KEYS.game, '0', 10_000, Date.now() + 1);
    expect(evicted.evicted).toBeGreaterThanOrEqual(1);
    expect(await redis.hexists(KEYS.game, player!.id)).toBe(0);

    expect(await h.balance(player!)).toMatchObject({ freeClicks: 7 });
    const next = await h.click(player!);
    expect(next.json()).toMatchObject({ globalClicks: 4, freeClicks: 6 });
  });

  it('keeps a user with clicks not yet in Postgres', async () => {
    const [player] = await h.registerUsers(1);
    await h.click(player!);
    const kept = await gameRedis(redis).evictIdleUsers(KEYS.game, '0', 10_000, Date.now() + 1);
    // The click's journal entry may have been flushed meanwhile; if not, the player stays.
    if ((await redis.hget(KEYS.game, 'seq')) !== (await redis.hget(KEYS.game, 'fseq')))
      expect(await redis.hexists(KEYS.game, player!.id)).toBe(1);
    expect(kept.cursor).toBe('0');
  });

  it('reads a record written before the fields had names, and rewrites it with the names', async () => {
    const [player] = await h.registerUsers(1);
    expect((await h.click(player!)).statusCode).toBe(200);
    const round = Number(await redis.hget(KEYS.game, 'round'));
    // As the previous version stored it: 4 granted, 2 purchased for this round.
    await redis.hset(
      KEYS.game,
      player!.id,
      JSON.stringify({
        ok: 1,
        v: 1,
        role: 'standard',
        name: player!.username,
        g: 4,
        pr: round,
        p: 2,
        pass: 0,
        tb: 5,
        tt: Date.now(),
      }),
    );
    expect(await h.balance(player!)).toMatchObject({ freeClicks: 6, purchasedClicks: 2 });
    const click = await h.click(player!);
    expect(click.json()).toMatchObject({ freeClicks: 5 });
    const stored = JSON.parse((await redis.hget(KEYS.game, player!.id))!) as Record<string, unknown>;
    expect(stored).toMatchObject({ loaded: 1, granted: 4, purchasedRound: round, purchased: 1 });
    expect(stored).not.toHaveProperty('g');
    expect(decodeUserRecord(JSON.stringify(stored))).toMatchObject({
      granted: 4,
      purchased: 1,
      deleted: false,
    });
  });
});
