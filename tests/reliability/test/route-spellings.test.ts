// One spelling per route, through the whole system. The front door's click admission, rate limit and
// metrics read the path literally; a second spelling of a route that a service still understands walks
// past all of them (`POST /api/game/%63lick` was a click the gateway never shed). Every route of the
// contracts catalogue is sent in every spelling the generator constructs; none may be answered by
// anyone but the gateway's 400.
import { ROUTES } from '@omc/contracts';
import { routeSpellings, samplePath } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { figures, invariant, reportFigures, violations } from '../src/context.js';
import { loginAdmin, type Player } from '../src/http.js';
import { rawRequest, type RawAnswer } from '../src/raw.js';

let admin: Player;
beforeAll(async () => {
  admin = await loginAdmin();
});
afterAll(reportFigures);

const codeOf = (answer: RawAnswer): string | undefined => {
  try {
    return (JSON.parse(answer.text) as { code?: string }).code;
  } catch {
    return undefined;
  }
};
/** Refused at the door: the gateway's own 400 for the spelling, or its 503 shedding a click. */
const refusedAtDoor = (answer: RawAnswer) =>
  (answer.status === 400 && codeOf(answer) === 'BAD_PATH') ||
  (answer.status === 503 && codeOf(answer) === 'OVERLOADED');

describe('the %63lick finding: 600 concurrent clicks on each spelling', () => {
  it('sheds the canonical spelling under load and lets no other spelling reach the game', async () => {
    const burst = (path: string) =>
      Promise.all(
        Array.from({ length: 600 }, () =>
          rawRequest('POST', path, { authorization: `Bearer ${admin.token}`, 'content-length': '0' }),
        ),
      );
    const canonical = await burst('/api/game/click');
    const encoded = await burst('/api/game/%63lick');
    const shed = (answers: RawAnswer[]) => answers.filter((a) => codeOf(a) === 'OVERLOADED').length;
    const reached = encoded.filter((a) => !refusedAtDoor(a)).length;
    figures.clickShedBySpelling = `/api/game/click ${shed(canonical)} shed of 600; /api/game/%63lick ${shed(encoded)} shed, ${reached} reached the game`;
    invariant(
      'no click sent as /api/game/%63lick reaches the game',
      reached === 0,
      `${reached} of 600 answered by the game (statuses ${[...new Set(encoded.map((a) => a.status))].join(', ')})`,
    );
    expect(violations()).toEqual([]);
  });
});

describe('every route of the catalogue in every other spelling', () => {
  it('is refused at the door: none reaches a service past admission', async () => {
    const through: string[] = [];
    let tried = 0;
    for (const route of ROUTES) {
      const path = samplePath(route.path);
      const spellings = routeSpellings(path);
      // A few at a time: thousands of requests, without a thousand sockets at once.
      for (let i = 0; i < spellings.length; i += 16) {
        const answers = await Promise.all(
          spellings
            .slice(i, i + 16)
            .map((spelling) =>
              rawRequest(
                route.method,
                spelling,
                route.method === 'GET' || route.method === 'DELETE'
                  ? {}
                  : { 'content-type': 'application/json' },
                route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}',
              ).then((answer) => ({ spelling, answer })),
            ),
        );
        for (const { spelling, answer } of answers) {
          tried += 1;
          if (!refusedAtDoor(answer))
            through.push(`${route.method} ${spelling} → ${answer.status} ${answer.text.slice(0, 60)}`);
        }
      }
    }
    figures.routeSpellingsTried += tried;
    figures.routeSpellingsPastAdmission += through.length;
    invariant(
      'no route spelling reaches a service past admission',
      through.length === 0,
      through.slice(0, 20),
    );
    expect(tried).toBeGreaterThan(ROUTES.length * 50);
    expect(violations()).toEqual([]);
  });
});
