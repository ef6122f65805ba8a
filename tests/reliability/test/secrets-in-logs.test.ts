// A log reader learns nothing that opens an account: a whole account journey (register, verify the
// email, reset the password, change the email, undo the change), each mailed link opened in the web app
// as a browser does (GET /page?token=...) and then used, and afterwards every process's log is searched
// for every token, cookie and password the journey was given. None may be there.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extraGateway, figures, invariant, reportFigures, suite } from '../src/context.js';
import { sleep } from '../src/http.js';
import { accountJourney } from '../src/journey.js';

afterAll(reportFigures);

describe('secrets in logs', () => {
  it('no token, cookie or password of a whole account journey is in any log', async () => {
    // A gateway that logs every request (the suite's own logs only warnings), as production does.
    const baseUrl = await extraGateway({ LOG_LEVEL: 'info' });
    const { secrets } = await accountJourney('logs', baseUrl);

    // Let the processes write what they log about the last requests and the mail sent.
    await sleep(1500);
    const logs = readdirSync(suite().logsDir).filter((f) => f.endsWith('.log'));
    expect(logs.length).toBeGreaterThan(0);
    const found: string[] = [];
    for (const file of logs) {
      const text = readFileSync(join(suite().logsDir, file), 'utf8');
      for (const secret of secrets)
        if (text.includes(secret)) found.push(`${file}: ${secret.slice(0, 12)}...`);
    }
    figures.tokensInLogs += found.length;
    figures.secretsSearched += secrets.size;
    invariant('no token, cookie or password of the journey is in any log', found.length === 0, found);
    expect(found).toEqual([]);
  });
});
