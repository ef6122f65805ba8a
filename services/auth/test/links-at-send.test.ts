// Mailed links are minted when the mail leaves, never carried by an event or kept in the mail queue: a
// reader of the bus, of auth's outbox or of a copy of its database finds no token. A mail sent again
// after a crash carries a working link; a link spent meanwhile (used, or by a security event) is never
// minted again, so its mail is not sent; events published by older auth with a token in them are
// handled without that token.
import { STREAMS, SUBJECTS, type EventEnvelope, type Subject } from '@omc/contracts';
import type { SunkMail } from '@omc/testkit';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, freshIp, register, startAuth, type AuthHarness } from './support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('mailed links minted at send', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth({ PUBLIC_WEB_URL: 'https://play.example' });
  });
  afterAll(async () => {
    await h?.close();
  });

  const tokenOf = (m: SunkMail) => new URL(m.link!).searchParams.get('token')!;
  const linkTo = (page: string) => (m: SunkMail) => Boolean(m.link?.includes(`/${page}?`));
  const forgot = (email: string) =>
    h.app.inject({
      method: 'POST',
      url: '/api/user/forgot-password',
      payload: { email },
      headers: { 'x-forwarded-for': freshIp() },
    });
  const reset = (token: string, newPassword = 'a-new-password-1') =>
    h.app.inject({ method: 'POST', url: '/api/user/reset-password', payload: { token, newPassword } });

  /** Every table of auth's database whose rows hold one of the tokens, and every stream message. */
  async function whereTokensRest(tokens: string[]): Promise<string[]> {
    const found: string[] = [];
    const tables = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(h.deps.db);
    for (const { name } of tables.rows) {
      const hits = await sql<{ token: string }>`
        select token from unnest(${tokens}::text[]) as token
        where exists (select 1 from ${sql.table(name)} t where strpos(row_to_json(t)::text, token) > 0)`.execute(
        h.deps.db,
      );
      for (const hit of hits.rows) found.push(`${name}: ${hit.token.slice(0, 10)}...`);
    }
    const info = await h.deps.nats.jsm.streams.info(STREAMS.auth.name);
    for (let seq = info.state.first_seq; seq > 0 && seq <= info.state.last_seq; seq++) {
      const message = await h.deps.nats.jsm.streams
        .getMessage(STREAMS.auth.name, { seq })
        .catch(() => undefined);
      if (!message) continue;
      const text = Buffer.from(message.data).toString();
      for (const token of tokens) if (text.includes(token)) found.push(`${message.subject} #${seq}`);
    }
    return found;
  }

  it('keeps no mailed token in the stream, the outbox, the mail queue or any table', async () => {
    const user = await register(h.app);
    const verify = await h.mail.waitFor(user.email, linkTo('verify-email'));
    expect((await forgot(user.email)).statusCode).toBe(202);
    const resetMail = await h.mail.waitFor(user.email, linkTo('reset-password'));
    const newEmail = `moved_${user.email}`;
    const change = await h.app.inject({
      method: 'PUT',
      url: '/api/user/change-email',
      payload: { email: newEmail },
      headers: { ...bearer(user.token), 'x-forwarded-for': freshIp() },
    });
    expect(change.statusCode, change.body).toBe(200);
    const confirmMail = await h.mail.waitFor(newEmail, linkTo('confirm-email'));
    const undoMail = await h.mail.waitFor(user.email, linkTo('undo-email-change'));
    const tokens = [verify, resetMail, confirmMail, undoMail].map(tokenOf);
    await sleep(300);
    expect(await whereTokensRest(tokens)).toEqual([]);
    // And every link works.
    expect((await reset(tokenOf(resetMail))).statusCode).toBe(200);
  });

  it('sends a mail again after a crash with a link that works', async () => {
    const user = await register(h.app);
    expect((await forgot(user.email)).statusCode).toBe(202);
    const first = await h.mail.waitFor(user.email, linkTo('reset-password'));
    // The sender crashed after the mail server took the mail but before the queue recorded it.
    await sql`update mail_queue set sent_at = null, next_attempt_at = now()
              where recipient = ${user.email} and kind = 'passwordReset'`.execute(h.deps.db);
    const again = await h.mail.waitFor(user.email, (m) => linkTo('reset-password')(m) && m !== first);
    expect(h.mail.to(user.email).filter(linkTo('reset-password'))).toHaveLength(2);
    expect((await reset(tokenOf(again))).statusCode).toBe(200);
  });

  it('never mints again a link spent before its mail was sent again', async () => {
    const user = await register(h.app);
    expect((await forgot(user.email)).statusCode).toBe(202);
    const mail = await h.mail.waitFor(user.email, linkTo('reset-password'));
    // "Sign out everywhere" spends every mailed reset link.
    const out = await h.app.inject({
      method: 'DELETE',
      url: '/api/user/sessions',
      headers: bearer(user.token),
    });
    expect(out.statusCode, out.body).toBeLessThan(300);
    await sql`update mail_queue set sent_at = null, next_attempt_at = now()
              where recipient = ${user.email} and kind = 'passwordReset'`.execute(h.deps.db);
    await sleep(1000);
    expect(h.mail.to(user.email).filter(linkTo('reset-password'))).toEqual([mail]);
    const row = await sql<{ sent_at: Date | null; dropped_at: Date | null }>`
      select * from mail_queue where recipient = ${user.email} and kind = 'passwordReset'`.execute(h.deps.db);
    expect(row.rows[0]?.sent_at).toBeNull();
    expect(row.rows[0]?.dropped_at).toBeInstanceOf(Date);
    expect((await reset(tokenOf(mail))).statusCode).toBe(400);
  });

  /** Publishes an event as older auth wrote it (with the link's token in it). */
  async function publishOld(subject: Subject, data: Record<string, unknown>): Promise<EventEnvelope> {
    const event = { id: crypto.randomUUID(), subject, occurredAt: new Date().toISOString(), data };
    await h.deps.nats.js.publish(subject, JSON.stringify(event), { msgID: event.id });
    return event as EventEnvelope;
  }

  it('sends no mail with the token an older event carried, and dead-letters nothing', async () => {
    const user = await register(h.app);
    await h.mail.waitFor(user.email, linkTo('verify-email'));
    const later = new Date(Date.now() + 3600_000).toISOString();
    await publishOld(SUBJECTS.passwordResetRequested, {
      userId: user.id,
      email: user.email,
      language: 'es',
      token: 'old-reset-token-from-the-stream',
      expiresAt: later,
    });
    await publishOld(SUBJECTS.emailChangeRequested, {
      userId: user.id,
      oldEmail: user.email,
      newEmail: `old_${user.email}`,
      language: 'es',
      confirmToken: 'old-confirm-token-from-the-stream',
      expiresAt: later,
      undoToken: 'old-undo-token-from-the-stream',
      undoExpiresAt: later,
    });
    // The verification link is not a stored secret: minted afresh for the same account and address.
    await publishOld(SUBJECTS.verificationRequested, {
      userId: user.id,
      email: user.email,
      language: 'es',
      token: 'old-verification-token-from-the-stream',
      expiresAt: later,
    });
    const verifications = () => h.mail.to(user.email).filter(linkTo('verify-email'));
    for (let i = 0; i < 100 && verifications().length < 2; i++) await sleep(100);
    expect(verifications()).toHaveLength(2);
    const fresh = tokenOf(verifications()[1]!);
    expect(fresh).not.toBe('old-verification-token-from-the-stream');
    expect(
      (await h.app.inject({ method: 'POST', url: '/api/user/verify-email', payload: { token: fresh } }))
        .statusCode,
    ).toBe(200);
    await sleep(500);
    const all = [...h.mail.to(user.email), ...h.mail.to(`old_${user.email}`)];
    expect(all.filter((m) => m.text.includes('-from-the-stream'))).toEqual([]);
    expect(all.filter(linkTo('reset-password'))).toEqual([]);
    expect(all.filter(linkTo('confirm-email'))).toEqual([]);
    const dead = await h.deps.nats.jsm.streams.info(STREAMS.deadLetters.name).catch(() => undefined);
    for (let seq = dead?.state.first_seq ?? 0; dead && seq > 0 && seq <= dead.state.last_seq; seq++) {
      const message = await h.deps.nats.jsm.streams
        .getMessage(STREAMS.deadLetters.name, { seq })
        .catch(() => undefined);
      expect(Buffer.from(message?.data ?? []).toString()).not.toContain('-from-the-stream');
    }
  });
});
