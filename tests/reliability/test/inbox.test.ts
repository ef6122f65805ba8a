// The inbox the suites read, after the mail catcher was killed while writing a mail: maildev reads the
// file it left empty back at its restart, as a mail with no recipients. The inbox leaves it out (its
// sender was never told it arrived, and sends it again), so no reader of the inbox trips over it.
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { caughtMails, killByPid, mailsTo, startMailCatcher } from '@omc/infra';
import { expect, it } from 'vitest';
import { waitFor } from '../src/http.js';

it('leaves out a mail the catcher was writing when it was killed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'omc-inbox-'));
  mkdirSync(join(dir, 'mail'));
  writeFileSync(join(dir, 'mail', 'cut-short.eml'), '');
  const catcher = await startMailCatcher({
    dir,
    env: process.env,
    logFile: createWriteStream(join(dir, 'maildev.log')),
  });
  try {
    // maildev reads its folder after it answers: the empty mail is listed once it has.
    const { value: listed } = await waitFor(
      'maildev to list the mail it read back',
      async () => {
        const all = (await (await fetch(`${catcher.uiUrl}/email`)).json()) as { to?: unknown }[];
        return all.length > 0 ? all : undefined;
      },
      30_000,
      100,
    );
    expect(listed.filter((m) => !Array.isArray(m.to))).toHaveLength(1);
    expect(await caughtMails(catcher.uiUrl)).toEqual([]);
    expect(await mailsTo(catcher.uiUrl, 'player@example.com')).toEqual([]);
  } finally {
    await killByPid(catcher.pid);
    rmSync(dir, { recursive: true, force: true });
  }
});
