// `npm start` stopped every way it is stopped: Ctrl-C in a real terminal (tmux), as a developer stops it;
// Ctrl-C while its output goes through a pipe the same Ctrl-C ends; and SIGTERM to the npm process (what a
// process manager sends). Each way every process and server it started is gone within the bound
// docs/operations.md gives, and the gateway no longer answers.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, it } from 'vitest';
import { ROOT } from '../src/images.js';
import { cleanUp, expectAllGone, npmStartInTerminal, prepareTerminal, tmux } from '../src/npm-start.js';

beforeAll(prepareTerminal);
afterEach(cleanUp);

describe('stopping npm start', () => {
  it('Ctrl-C in the terminal stops every process and server it started', async () => {
    const { marker, gatewayUrl } = await npmStartInTerminal();
    tmux(['send-keys', '-t', 'omc', 'C-c']);
    await expectAllGone(marker, gatewayUrl, 'Ctrl-C');
  });

  it('Ctrl-C stops everything when the output goes through a pipe that the same Ctrl-C ends', async () => {
    // `npm start 2>&1 | tee start.log`: tee dies with the Ctrl-C, and every line npm start writes while it
    // stops goes to a closed pipe; that must not cut the stop short and leave servers behind.
    const log = join(ROOT, '.data', 'test', `stop-tee-${randomBytes(4).toString('hex')}.log`);
    const { marker, gatewayUrl } = await npmStartInTerminal(` 2>&1 | tee ${log}`);
    tmux(['send-keys', '-t', 'omc', 'C-c']);
    await expectAllGone(marker, gatewayUrl, 'Ctrl-C through tee');
  });

  it("SIGTERM to npm's process stops every process and server it started", async () => {
    const { marker, gatewayUrl, npm } = await npmStartInTerminal();
    process.kill(npm.pid, 'SIGTERM');
    await expectAllGone(marker, gatewayUrl, 'SIGTERM to npm');
  });
});
