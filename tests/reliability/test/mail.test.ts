// Account mail when an event is delivered twice: one mail; one to each address for an email change, the
// event as auth published it. The mail server down is in mail.chaos.test.ts.
import { makeEvent, SUBJECTS } from '@omc/contracts';
import { mailsTo } from '@omc/infra';
import { connect } from 'nats';
import { afterAll, describe, expect, it } from 'vitest';
import { figures, invariant, reportFigures, suite, violations } from '../src/context.js';
import { query } from '../src/db.js';
import { call, registerPlayer, sleep, waitFor } from '../src/http.js';

afterAll(reportFigures);

const inbox = (address: string, subject?: RegExp) => mailsTo(suite().mailUrl, address, subject);

describe('account mail', () => {
  it('sends one mail for an event delivered twice', async () => {
    const player = await registerPlayer('redeliver');
    const me = await call('GET', '/api/user/profile', { token: player.token });
    expect(me.status).toBe(200);
    const userId = JSON.parse(Buffer.from(player.token.split('.')[1]!, 'base64url').toString()).sub as string;
    const event = makeEvent(SUBJECTS.passwordReset, { userId, email: player.email, language: 'it' });
    const nc = await connect({ servers: suite().natsUrl });
    try {
      const js = nc.jetstream();
      // The same event under two message ids: JetStream keeps and delivers both, as after a re-publish
      // from an outbox that crashed before it could mark the event sent.
      await js.publish(event.subject, JSON.stringify(event), { msgID: `${event.id}:first` });
      await js.publish(event.subject, JSON.stringify(event), { msgID: `${event.id}:again` });
      figures.faultsInjected += 1;
      figures.faults.push('auth.user.password_reset.v1 delivered twice');
    } finally {
      await nc.close();
    }
    await waitFor(
      'the notice mail',
      async () => (await inbox(player.email, /La tua password è cambiata/)).length >= 1,
      30_000,
    );
    await sleep(1500);
    const mails = await inbox(player.email, /La tua password è cambiata/);
    invariant('an event delivered twice sends one mail', mails.length === 1, mails.length);
    expect(violations()).toEqual([]);
  });

  it('sends one confirm mail and one notice for an email change delivered twice', async () => {
    const player = await registerPlayer('redeliver');
    const userId = JSON.parse(Buffer.from(player.token.split('.')[1]!, 'base64url').toString()).sub as string;
    const newEmail = `moved_${player.email}`;
    const asked = await call('PUT', '/api/user/change-email', {
      token: player.token,
      body: { email: newEmail, currentPassword: player.password },
    });
    expect(asked.status, asked.text).toBe(200);
    // The event as auth's outbox published it (it names the change; the mailer mints the links), then
    // published again under two other message ids, as after a re-publish from an outbox that crashed.
    const { value: published } = await waitFor(
      'the change request in the outbox',
      async () =>
        (
          await query<{ payload: { id: string; subject: string } }>(
            'auth',
            `select payload from outbox where subject = $1 and payload->'data'->>'userId' = $2`,
            [SUBJECTS.emailChangeRequested, userId],
          )
        )[0]?.payload,
      30_000,
    );
    const nc = await connect({ servers: suite().natsUrl });
    try {
      const js = nc.jetstream();
      for (const copy of ['first', 'again'])
        await js.publish(published.subject, JSON.stringify(published), { msgID: `${published.id}:${copy}` });
      figures.faultsInjected += 1;
      figures.faults.push('auth.user.email_change_requested.v1 delivered twice');
    } finally {
      await nc.close();
    }
    const confirm = /Confirma tu nuevo correo/;
    const notice = /Se pidió cambiar el correo de tu cuenta/;
    await waitFor(
      'the confirm mail and the notice',
      async () =>
        (await inbox(newEmail, confirm)).length >= 1 && (await inbox(player.email, notice)).length >= 1,
      30_000,
    );
    await sleep(1500);
    const counts = {
      confirm: (await inbox(newEmail, confirm)).length,
      notice: (await inbox(player.email, notice)).length,
    };
    invariant(
      'an email change delivered twice mails each address once',
      counts.confirm === 1 && counts.notice === 1,
      counts,
    );
    expect(violations()).toEqual([]);
  });
});
