// `npm start` stopped as a developer stops it: Ctrl-C in a real terminal (tmux). Every process and server
// it started is gone within the bound docs/operations.md gives, and the gateway no longer answers. The
// other ways (a pipe the same Ctrl-C ends, SIGTERM from a process manager) are in stop.chaos.test.ts.
import { afterEach, beforeAll, describe, it } from 'vitest';
import { cleanUp, expectAllGone, npmStartInTerminal, prepareTerminal, tmux } from '../src/npm-start.js';

beforeAll(prepareTerminal);
afterEach(cleanUp);

describe('stopping npm start', () => {
  it('Ctrl-C in the terminal stops every process and server it started', async () => {
    const { marker, gatewayUrl } = await npmStartInTerminal();
    tmux(['send-keys', '-t', 'omc', 'C-c']);
    await expectAllGone(marker, gatewayUrl, 'Ctrl-C');
  });
});
