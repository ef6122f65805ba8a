// Every user change reaches JetStream as the contract's event, read here by a real consumer; events
// written while NATS is down are published when it returns (transactional outbox).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { SUBJECTS } from '@omc/contracts';
import { startNats } from '@omc/infra';
import { eventually, workspaceRoot } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  bearer,
  collectEvents,
  grantRole,
  loginToken,
  register,
  secondAdmin,
  startAuth,
  type AuthHarness,
} from './support.js';

describe('events', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('announces the bootstrap admin as a registered admin', async () => {
    const event = await eventually(
      () => h.events.of(SUBJECTS.userRegistered).find((e) => e.data.email === ADMIN.email),
      'bootstrap admin registered',
    );
    expect(event!.data).toMatchObject({ username: ADMIN.username, role: 'admin', preferredLanguage: 'es' });
  });

  it('publishes registered, renamed, email changed, role changed and deleted, each once, with the user id', async () => {
    const user = await register(h.app);
    const registered = await eventually(
      () => h.events.of(SUBJECTS.userRegistered).find((e) => e.data.userId === user.id),
      'registered',
    );
    expect(registered!.data).toEqual({
      userId: user.id,
      username: user.username,
      email: user.email,
      role: 'standard',
      preferredLanguage: 'es',
    });

    const put = (url: string, payload: object) =>
      h.app.inject({ method: 'PUT', url, payload, headers: bearer(user.token) });
    expect((await put('/api/user/change-username', { username: `${user.username}_r` })).statusCode).toBe(200);
    expect((await put('/api/user/change-email', { email: `r_${user.email}` })).statusCode).toBe(200);
    // The email changes when the new address confirms from its mail.
    const confirmMail = await h.mail.waitFor(`r_${user.email}`, (m) =>
      Boolean(m.link?.includes('/confirm-email')),
    );
    const confirmed = await h.app.inject({
      method: 'POST',
      url: '/api/user/confirm-email',
      payload: { token: new URL(confirmMail.link!).searchParams.get('token') },
    });
    expect(confirmed.statusCode).toBe(200);
    const adminToken = await loginToken(h.app, ADMIN.username, ADMIN.password);
    const approver = await secondAdmin(h);
    const promote = await grantRole(
      h,
      { requester: adminToken, approver: approver.token },
      `r_${user.email}`,
      'superuser',
    );
    expect(promote.statusCode).toBe(200);
    // Signed in again, by the new address.
    const fresh = await loginToken(h.app, `r_${user.email}`, user.password);
    expect(
      (await h.app.inject({ method: 'DELETE', url: '/api/user/delete-account', headers: bearer(fresh) }))
        .statusCode,
    ).toBe(200);

    await eventually(
      () => h.events.of(SUBJECTS.userDeleted).some((e) => e.data.userId === user.id),
      'deleted',
    );
    // The account's own changes; the mails it asked for and the confirmation of its new address are
    // counted in verification.test.ts and email-change.test.ts.
    const mailEvents: string[] = [
      SUBJECTS.verificationRequested,
      SUBJECTS.emailChangeRequested,
      SUBJECTS.emailVerified,
    ];
    // The deletion ends both of the account's sessions (the registration's and the fresh sign-in),
    // each announced; the account's changes are the rest.
    await eventually(
      () => h.events.of(SUBJECTS.sessionEnded).filter((e) => e.data.userId === user.id).length === 2,
      'both sessions announced ended',
    );
    const mine = h.events.received.filter(
      (e) =>
        (e.data as { userId?: string }).userId === user.id &&
        !mailEvents.includes(e.subject) &&
        e.subject !== SUBJECTS.sessionEnded,
    );
    expect(mine.map((e) => [e.subject, e.data])).toEqual([
      [SUBJECTS.userRegistered, registered!.data],
      [SUBJECTS.userRenamed, { userId: user.id, username: `${user.username}_r` }],
      [SUBJECTS.userEmailChanged, { userId: user.id, email: `r_${user.email}` }],
      [
        SUBJECTS.userRoleChanged,
        // The event names the admin who made the change, in auth's own order of role changes.
        {
          userId: user.id,
          role: 'superuser',
          previousRole: 'standard',
          roleVersion: expect.any(Number),
          changedBy: expect.any(String),
        },
      ],
      [SUBJECTS.userDeleted, { userId: user.id }],
    ]);
    expect(new Set(mine.map((e) => e.id)).size).toBe(mine.length);
  });

  it('publishes nothing for a refused or empty change', async () => {
    const user = await register(h.app);
    const other = await register(h.app);
    await eventually(
      () => h.events.of(SUBJECTS.userRegistered).some((e) => e.data.userId === other.id),
      'registered',
    );
    const put = (url: string, payload: object) =>
      h.app.inject({ method: 'PUT', url, payload, headers: bearer(user.token) });
    expect((await put('/api/user/change-username', { username: other.username })).statusCode).toBe(409);
    expect((await put('/api/user/change-email', { email: other.email })).statusCode).toBe(409);
    expect((await put('/api/user/change-username', { username: user.username })).statusCode).toBe(200);
    // A marker change after them: once it arrives, anything the refused changes published would have too.
    expect((await put('/api/user/change-username', { username: `${user.username}_m` })).statusCode).toBe(200);
    await eventually(
      () => h.events.of(SUBJECTS.userRenamed).some((e) => e.data.userId === user.id),
      'marker',
    );
    const mine = h.events.received
      .filter((e) => (e.data as { userId?: string }).userId === user.id)
      .map((e) => e.subject);
    // Which events, not their order across subjects: the relay publishes a batch at once.
    expect(mine.sort()).toEqual(
      [SUBJECTS.userRegistered, SUBJECTS.verificationRequested, SUBJECTS.userRenamed].sort(),
    );
  });

  it('counts published events on /metrics', async () => {
    await eventually(
      async () =>
        (await h.deps.db.selectFrom('outbox').select('id').where('published_at', 'is', null).execute())
          .length === 0,
      'outbox drained',
    );
    const text = (await h.app.inject('/metrics')).body;
    expect(text).toMatch(
      /auth_events_published_total\{subject="auth\.user\.registered\.v1",service="auth"\} [1-9]/,
    );
    expect(text).toMatch(/auth_registrations_total\{service="auth"\} [1-9]/);
    expect(text).toMatch(/auth_logins_total\{outcome="success",service="auth"\} [1-9]/);
  });
});

describe('events while NATS is down', () => {
  const dir = join(workspaceRoot(), '.data', 'test', `auth-events-nats-${process.pid}`);
  let nats: Awaited<ReturnType<typeof startNats>>;
  let h: AuthHarness;

  beforeAll(async () => {
    nats = await startNats(dir);
    h = await startAuth({ NATS_URL: nats.url });
  });
  afterAll(async () => {
    await h?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts a registration while NATS is stopped and publishes its event once NATS is back', async () => {
    await eventually(() => h.events.of(SUBJECTS.userRegistered).length > 0, 'bootstrap event');
    await h.events.close();
    const port = Number(new URL(nats.url).port);
    await nats.stop();
    const user = await register(h.app);
    const pending = await h.deps.db
      .selectFrom('outbox')
      .select('subject')
      .where('published_at', 'is', null)
      .execute();
    expect(pending.map((r) => r.subject)).toContain(SUBJECTS.userRegistered);

    nats = await startNats(dir, { port });
    const events = await collectEvents(nats.url);
    try {
      const event = await eventually(
        () => events.of(SUBJECTS.userRegistered).find((e) => e.data.userId === user.id),
        'registered after NATS returned',
        20_000,
      );
      expect(event!.data.username).toBe(user.username);
      expect(events.of(SUBJECTS.userRegistered).filter((e) => e.data.userId === user.id)).toHaveLength(1);
    } finally {
      await events.close();
    }
  });
});
