// The system the suite runs against: every part up and reachable the way it should be.
import { afterAll, describe, expect, it } from 'vitest';
import { reportFigures, suite } from '../src/context.js';
import { call } from '../src/http.js';

afterAll(reportFigures);

describe('the system under test', () => {
  it('has every part ready', async () => {
    for (const [name, url] of Object.entries(suite().urls)) {
      const response = await fetch(`${url}/readyz`);
      expect(response.status, name).toBe(200);
    }
  });

  it('answers through the gateway', async () => {
    const answer = await call('GET', '/api/game/rules');
    expect(answer.status).toBe(200);
    expect(answer.body.roundTarget).toBe(Number(suite().env.ROUND_TARGET));
  });
});
