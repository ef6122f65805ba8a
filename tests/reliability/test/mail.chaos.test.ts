// Account mail with the mail server down while players ask for password resets: their answers do not
// wait for it, and every mail arrives once it is back, none lost, none doubled.
import { mailsTo } from '@omc/infra';
import { afterAll, describe, expect, it } from 'vitest';
import {
  invariant,
  recordRecovery,
  reportFigures,
  restartPart,
  stopPart,
  suite,
  violations,
} from '../src/context.js';
import { call, registerPlayer, sleep, waitFor } from '../src/http.js';

afterAll(reportFigures);

const inbox = (address: string, subject?: RegExp) => mailsTo(suite().mailUrl, address, subject);

describe('account mail', () => {
  it('while the mail server is down, reset requests are answered at once and every mail arrives once it is back', async () => {
    expect(suite().mailUrl).toBeTruthy();
    const players = await Promise.all([
      registerPlayer('mail'),
      registerPlayer('mail'),
      registerPlayer('mail'),
    ]);
    await stopPart('maildev', 'SIGKILL');
    const downAt = Date.now();
    try {
      for (const player of players) {
        const answer = await call('POST', '/api/user/forgot-password', {
          body: { email: player.email },
          timeoutMs: 5000,
        });
        invariant(
          'a reset request is answered 202 while the mail server is down',
          answer.status === 202,
          answer.status,
        );
      }
      // Long enough for several attempts (200 ms, doubling) to fail.
      await sleep(2500);
    } finally {
      await restartPart('maildev');
    }
    const { ms } = await waitFor(
      'every reset mail after the mail server came back',
      async () =>
        (await Promise.all(players.map((p) => inbox(p.email, /Restablece tu contraseña/)))).every(
          (m) => m.length >= 1,
        ),
      30_000,
    );
    recordRecovery({
      fault: 'mail server down (maildev killed)',
      recoveryMs: ms,
      outageMs: Date.now() - downAt,
      failedDuringFault: 0,
    });
    await sleep(1500);
    for (const player of players) {
      const mails = await inbox(player.email, /Restablece tu contraseña/);
      invariant('one reset mail per request, none lost, none doubled', mails.length === 1, {
        player: player.username,
        mails: mails.length,
      });
    }
    expect(violations()).toEqual([]);
  });
});
