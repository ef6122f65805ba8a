// The sign-up clicks and the operator switch SIGNUP_FREE_CLICKS_AFTER_VERIFICATION: off (the default), a
// registered player has SIGNUP_FREE_CLICKS at once and a verified email adds nothing; on, the clicks come
// when auth says the email is verified, once, however often that is said (a redelivered event, the
// address verified again after a change), and they survive Redis being rebuilt from Postgres.
import { randomUUID } from 'node:crypto';
import { makeEvent, SUBJECTS } from '@omc/contracts';
import { eventually } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGame, type Harness, type TestUser } from './support.js';

const verified = (h: Harness, user: TestUser, email = `${user.username}@example.test`) => {
  const event = makeEvent(SUBJECTS.emailVerified, { userId: user.id, email });
  return h.publish(event).then(() => event);
};

/** Waits until the game has handled every auth event published so far. */
async function settled(h: Harness): Promise<void> {
  await eventually(async () => {
    const info = await h.nats.jsm.consumers.info('AUTH_EVENTS', 'game-auth');
    return info.num_pending === 0 && info.num_ack_pending === 0;
  }, 'the game consumed every auth event');
}

describe('sign-up clicks with the switch off (the default)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGame({ name: 'signup_off', env: { CLICK_RATE_PER_USER: '100000' } });
  });
  afterAll(async () => h?.close());

  it('grants SIGNUP_FREE_CLICKS at registration, and a verified email adds none', async () => {
    expect(h.config.SIGNUP_FREE_CLICKS_AFTER_VERIFICATION).toBe(false);
    const user = await h.registerUser();
    expect((await h.balance(user)).freeClicks).toBe(10);
    await verified(h, user);
    await settled(h);
    expect((await h.balance(user)).freeClicks).toBe(10);
    expect((await h.click(user)).json().freeClicks).toBe(9);
  });
});

describe('sign-up clicks with SIGNUP_FREE_CLICKS_AFTER_VERIFICATION on', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGame({
      name: 'signup_on',
      env: { CLICK_RATE_PER_USER: '100000', SIGNUP_FREE_CLICKS_AFTER_VERIFICATION: 'true' },
    });
  });
  afterAll(async () => h?.close());

  it('grants nothing at registration: the first click is refused for want of clicks', async () => {
    const user = await h.registerUser();
    expect((await h.balance(user)).freeClicks).toBe(0);
    const click = await h.click(user);
    expect(click.statusCode).toBe(403);
  });

  it('grants the sign-up clicks once the email is verified, once however often that is said', async () => {
    const user = await h.registerUser();
    const first = await verified(h, user);
    await eventually(async () => (await h.balance(user)).freeClicks === 10, 'the sign-up clicks');
    expect((await h.click(user)).json().freeClicks).toBe(9);
    // The same event again past JetStream's duplicate window, and the address verified again after a change.
    await h.publish(first, `${first.id}-redelivered`);
    await verified(h, user, `new_${user.username}@example.test`);
    await settled(h);
    expect((await h.balance(user)).freeClicks).toBe(9);
    // Written to Postgres: a Redis rebuilt from it neither loses nor repeats the grant. The journal is
    // written first, as its flush would within 100 ms: a click still only in Redis's journal when Redis
    // is lost is within the loss the design allows (docs/game.md), and not what this test is about.
    await h.flushJournal();
    await h.restartRedisEmpty();
    await eventually(
      async () => (await h.balance(user).catch(() => undefined))?.freeClicks === 9,
      'reloaded',
    );
    await verified(h, user);
    await settled(h);
    expect((await h.balance(user)).freeClicks).toBe(9);
  });

  it('waits for the registration when the verification arrives first, then grants once', async () => {
    const id = randomUUID();
    const username = `early_${id.slice(0, 8)}`;
    const user: TestUser = {
      id,
      username,
      role: 'standard',
      token: await h.token({ id, username, role: 'standard' }),
    };
    await verified(h, user);
    await new Promise((r) => setTimeout(r, 200));
    await h.publish(
      makeEvent(SUBJECTS.userRegistered, {
        userId: id,
        username,
        email: `${username}@example.test`,
        role: 'standard',
        preferredLanguage: 'en',
      }),
    );
    await eventually(async () => (await h.profile(user)).statusCode === 200, 'the game knows the user');
    await eventually(async () => (await h.balance(user)).freeClicks === 10, 'the sign-up clicks');
    await settled(h);
    expect((await h.balance(user)).freeClicks).toBe(10);
    // And Postgres has the grant and its mark once the journal is written.
    const db = h.app.game.deps.db;
    await eventually(async () => {
      const row = await db
        .selectFrom('users')
        .select(['granted_clicks', 'signup_clicks_granted'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return Number(row.granted_clicks) === 10 && row.signup_clicks_granted;
    }, 'the grant written to Postgres');
  });
});

describe('a sign-up grant and a Redis lost before the journal is written', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGame({
      name: 'signup_durable',
      // The journal is never flushed on its own: only the grant's own record can save it.
      env: { SIGNUP_FREE_CLICKS_AFTER_VERIFICATION: 'true', JOURNAL_FLUSH_MS: '600000' },
    });
  });
  afterAll(async () => h?.close());

  it('keeps the grant once its event was acknowledged, and still grants it only once', async () => {
    const user = await h.registerUser();
    await verified(h, user);
    await eventually(async () => (await h.balance(user)).freeClicks === 10, 'the sign-up clicks');
    await settled(h);

    await h.restartRedisEmpty();

    await eventually(
      async () => (await h.balance(user).catch(() => undefined))?.freeClicks === 10,
      'the grant reloaded from Postgres',
    );
    await verified(h, user);
    await settled(h);
    expect((await h.balance(user)).freeClicks).toBe(10);
  });
});
