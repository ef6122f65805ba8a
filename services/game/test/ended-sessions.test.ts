// A session its owner ended clicks no more: once auth.session.ended.v1 arrives, every game instance
// refuses the tokens that name it (401, with a message), while the owner's other sessions click on; an
// instance started afterwards knows it too (it reads the recent events at start); and a session whose
// last token has expired is forgotten.
import { randomUUID } from 'node:crypto';
import { makeEvent, SUBJECTS } from '@omc/contracts';
import { eventually, signAccessToken } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, start, type GameApp, type GameStarted } from '../src/app.js';
import { createDeps } from '../src/deps.js';
import { EndedSessions, watchEndedSessions } from '../src/players/ended-sessions.js';
import { connectNats, endedSessionRefusal } from '@omc/service-kit';
import { pino } from 'pino';
import { startGame, type Harness, type TestUser } from './support.js';

describe('ended sessions', () => {
  let h: Harness;
  let late: { app: GameApp; started: GameStarted } | undefined;
  beforeAll(async () => {
    h = await startGame({ name: 'ended-sessions', instances: 2, env: { CLICK_RATE_PER_USER: '100000' } });
  });
  afterAll(async () => {
    if (late) {
      await late.app.close();
      await late.started.stop();
      await late.app.game.deps.close();
    }
    await h?.close();
  });

  /** The player's token of one session, as auth signs it (`sid`: the session's refresh family). */
  const inSession = async (player: TestUser, sid: string): Promise<TestUser> => ({
    ...player,
    token: await signAccessToken(h.keys.privateKey, {
      sub: player.id,
      username: player.username,
      role: 'standard',
      sid,
      sv: 0,
    }),
  });
  const ended = (player: TestUser, sessionId: string, untilMs: number) =>
    makeEvent(SUBJECTS.sessionEnded, {
      userId: player.id,
      sessionId,
      until: new Date(untilMs).toISOString(),
    });

  it('refuses the ended session on every instance and lets the others click on', async () => {
    const player = await h.registerUser();
    const sessionId = randomUUID();
    const thief = await inSession(player, sessionId);
    const owner = await inSession(player, randomUUID());
    for (const on of h.apps) {
      expect((await h.click(thief, on)).statusCode).toBe(200);
      expect((await h.click(owner, on)).statusCode).toBe(200);
    }
    await h.publish(ended(player, sessionId, Date.now() + 16 * 60_000));

    for (const on of h.apps)
      await eventually(
        async () => (await h.click(thief, on)).statusCode === 401,
        'the ended session refused',
      );
    const counter = (await h.state()).globalClicks;
    for (const on of h.apps) {
      const refused = await h.click(thief, on);
      expect(refused.statusCode).toBe(401);
      expect((refused.json() as { message: string }).message).toMatch(/session was ended/);
      expect((await h.profile(thief, on)).statusCode).toBe(401);
      expect((await h.click(owner, on)).statusCode).toBe(200);
    }
    // The refused clicks counted nothing.
    expect((await h.state()).globalClicks).toBe(counter + h.apps.length);

    // An instance started afterwards (a new pod, a restart) reads the recent events at start.
    const deps = await createDeps(h.config);
    const app = await buildApp(deps, { logger: false });
    late = { app, started: await start(app) };
    await eventually(
      async () => (await h.click(thief, app)).statusCode === 401,
      'the new instance refuses it',
    );
    expect((await h.click(owner, app)).statusCode).toBe(200);
  });

  it('a pod that has not replayed the ended sessions is unready and refuses tokens with 503, guests served', async () => {
    const player = await h.registerUser();
    const sessionId = randomUUID();
    const thief = await inSession(player, sessionId);
    const owner = await inSession(player, randomUUID());
    await h.publish(ended(player, sessionId, Date.now() + 16 * 60_000));
    // Built, its replay not run yet (start() runs it): it cannot tell the thief from the owner.
    const deps = await createDeps(h.config);
    const pod = await buildApp(deps, { logger: false });
    let started: GameStarted | undefined;
    try {
      const ready = await pod.inject('/readyz');
      expect(ready.statusCode).toBe(503);
      expect(ready.json().checks.endedSessions).toMatch(/^down/);
      for (const player of [thief, owner]) {
        const click = await h.click(player, pod);
        expect(click.statusCode).toBe(503);
        expect(click.headers['retry-after']).toBe('1');
        expect((await h.profile(player, pod)).statusCode).toBe(503);
      }
      expect((await pod.inject('/api/game/rules')).statusCode).toBe(200);

      started = await start(pod);
      await eventually(() => pod.game.endedSessions.replayed, 'the replay at start');
      expect((await pod.inject('/readyz')).statusCode).toBe(200);
      expect((await h.click(thief, pod)).statusCode).toBe(401);
      expect((await h.click(owner, pod)).statusCode).toBe(200);
    } finally {
      await pod.close();
      await started?.stop();
      await deps.close();
    }
  });

  it('a reader that cannot hear the bus past ENDED_SESSIONS_BLIND_MS refuses every token with 503', async () => {
    // The game's hook asks this reader (endedSessionRefusal); here on a bus connection of its own, so
    // the test can take the bus away from it alone.
    const nats = await connectNats(h.config.NATS_URL, 'blind-reader');
    const sessions = new EndedSessions(Date.now, 1000);
    const log = pino({ enabled: false });
    const watch = watchEndedSessions({ nats, sessions, clock: Date.now, log });
    try {
      await eventually(() => sessions.replayed, 'the replay');
      const sid = randomUUID();
      expect(endedSessionRefusal(sessions, { sid })).toBeUndefined();
      await nats.nc.close();
      // A session ended now could not be heard of: once the bound has passed, no token is trusted.
      await eventually(() => endedSessionRefusal(sessions, { sid })?.statusCode === 503, 'the refusal');
      expect(endedSessionRefusal(sessions, { sid })?.message).toMatch(/cannot currently learn/);
    } finally {
      await watch.stop();
      await nats.close().catch(() => undefined);
    }
  });

  it('forgets a session whose last token has expired', async () => {
    const player = await h.registerUser();
    const sessionId = randomUUID();
    const expired = await inSession(player, sessionId);
    const other = await inSession(player, randomUUID());
    await h.publish(ended(player, sessionId, Date.now() - 1000));
    // The event of another session, published after, marks when this one has been read.
    const marker = randomUUID();
    await h.publish(ended(player, marker, Date.now() + 60_000));
    await eventually(
      async () => (await h.click(await inSession(player, marker))).statusCode === 401,
      'the later event read',
    );
    expect((await h.click(expired)).statusCode).toBe(200);
    expect((await h.click(other)).statusCode).toBe(200);
  });
});

describe('EndedSessions', () => {
  it('holds a session until its time, then lets it go', () => {
    let now = 1_000_000;
    const sessions = new EndedSessions(() => now);
    sessions.add('a', now + 1000);
    sessions.add('b', now - 1);
    expect(sessions.has('a')).toBe(true);
    expect(sessions.has('b')).toBe(false);
    expect(sessions.has(undefined)).toBe(false);
    expect(sessions.size).toBe(1);
    now += 1000;
    expect(sessions.has('a')).toBe(false);
    sessions.prune();
    expect(sessions.size).toBe(0);
  });
});
