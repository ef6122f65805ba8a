// `/winners` with its list already drawn: the first page of winners read from the game (once for many
// pages), every value escaped, dates in the time zone the player's hint names, the same rows embedded
// for the app, and the page without a list whenever the game cannot give one in time.
import { EMBEDDED_WINNERS_ID, WinnersResponse } from '@omc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clickPathEnv,
  makeWebDist,
  startGateway,
  startStandIn,
  type Gateway,
  type StandIn,
} from './support.js';

const HOSTILE = '<img src=x onerror=alert(1)></script><!--';
const WINNERS: WinnersResponse = {
  winners: [
    // Won late on New Year's Eve in UTC: already New Year's Day in Madrid.
    {
      _id: 'w2',
      userId: { username: HOSTILE },
      pot: 1234.5,
      createdAt: '2025-12-31T23:30:00.000Z',
      round: 2,
    },
    { _id: 'w1', userId: null, pot: 0.1, createdAt: '2025-06-01T12:00:00.000Z', round: 1 },
  ],
  nextCursor: null,
};

/** A game whose winners list is what `answer` says; every read is counted. */
class Game {
  reads = 0;
  answer: () => Promise<{ status: number; body: unknown }> = async () => ({ status: 200, body: WINNERS });
  standIn!: StandIn;
  async start(): Promise<void> {
    this.standIn = await startStandIn('game', (app) =>
      app.get('/api/winners', async (_request, reply) => {
        this.reads++;
        const { status, body } = await this.answer();
        return reply.code(status).send(body);
      }),
    );
  }
}

/** A gateway in front of a game, drawing the winners page from a built app with its first screens. */
const drawingGateway = (game: Game | string, env: Record<string, string> = {}) =>
  startGateway({
    ...clickPathEnv(typeof game === 'string' ? game : game.standIn.url),
    WEB_DIST: makeWebDist({ shells: true }),
    ...env,
  });

/** The page as a browser gets it (fetch decodes the body; the header says how it came). */
async function page(gateway: Gateway, cookie = '', acceptEncoding = 'br, gzip') {
  const response = await fetch(`${gateway.url}/winners`, {
    headers: { cookie, 'accept-encoding': acceptEncoding },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/text\/html/);
  expect(response.headers.get('cache-control')).toBe('no-cache');
  expect(response.headers.get('vary')).toMatch(/cookie/);
  expect(response.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
  return { html: await response.text(), encoding: response.headers.get('content-encoding') };
}

const rows = (html: string) =>
  [...html.matchAll(/<tr>(.*?)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]),
  );
const embedded = (html: string) => {
  const match = new RegExp(
    `<script type="application/json" id="${EMBEDDED_WINNERS_ID}" data-read-at="(\\d+)">(.*?)</script>`,
  ).exec(html);
  return match ? { readAt: Number(match[1]), page: JSON.parse(match[2]!) } : undefined;
};

describe('the winners page drawn with its list', () => {
  const game = new Game();
  let gateway: Gateway;
  beforeAll(async () => {
    await game.start();
    gateway = await drawingGateway(game, { WINNERS_PAGE_TTL_MS: '600000' });
  });
  afterAll(async () => {
    await gateway?.close();
    await game.standIn?.close();
  });

  it('draws every winner with its values escaped, and embeds the same page for the app', async () => {
    const { html, encoding } = await page(gateway, 'omc_lang=en; omc_tz=Europe/Madrid');
    expect(encoding).toBe('br');
    expect(html).toMatch(/^<!doctype html><html lang="en">/);
    expect(rows(html)).toEqual([
      ['&lt;img src=x onerror=alert(1)&gt;&lt;/script&gt;&lt;!--', '1234.50$', '01/01/2026'],
      ['gone en', '0.10$', '01/06/2025'],
    ]);
    // Nothing the player wrote reaches the page as markup, in the rows or in the data block.
    expect(html).not.toContain('<img');
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    const data = embedded(html);
    expect(WinnersResponse.parse(data?.page)).toEqual(WINNERS);
    expect(data!.readAt).toBeLessThanOrEqual(Date.now());
  });

  it('writes dates in the time zone the hint names, and in UTC for none or one that is not a zone', async () => {
    const dateOfLast = async (cookie: string) => rows((await page(gateway, cookie)).html)[0]![2];
    expect(await dateOfLast('omc_tz=Europe/Madrid')).toBe('01/01/2026');
    expect(await dateOfLast('omc_tz=America/Los_Angeles')).toBe('31/12/2025');
    expect(await dateOfLast('')).toBe('31/12/2025');
    for (const zone of ['Not/AZone', 'x'.repeat(200), '../../etc/passwd', '%2F', 'Europe/Madrid,UTC'])
      expect(await dateOfLast(`omc_tz=${zone}`), zone).toBe('31/12/2025');
  });

  it('is drawn in the language the hint names, compressed as the browser accepts', async () => {
    for (const [acceptEncoding, expected] of [
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['identity', null],
    ] as const) {
      const { html, encoding } = await page(gateway, 'omc_lang=pt', acceptEncoding);
      expect(encoding, acceptEncoding).toBe(expected);
      expect(rows(html)[1]![0], acceptEncoding).toBe('gone pt');
    }
  });

  it('reads the list once for many pages at once', async () => {
    const before = game.reads;
    await Promise.all(Array.from({ length: 20 }, () => page(gateway, 'omc_lang=es')));
    expect(game.reads - before).toBe(0);
  });
});

describe('the winners page without a list', () => {
  const game = new Game();
  let gateway: Gateway;
  beforeAll(async () => {
    await game.start();
    gateway = await drawingGateway(game, { WINNERS_PAGE_TTL_MS: '1', WINNERS_PAGE_WAIT_MS: '100' });
  });
  afterAll(async () => {
    await gateway?.close();
    await game.standIn?.close();
  });
  const plain = (html: string) => /data-shell="winners">winners es</.test(html) && !embedded(html);

  it('is sent when the game has no winner yet, refuses, sends what is not a list, or does not answer in time', async () => {
    game.answer = async () => ({ status: 200, body: { winners: [], nextCursor: null } });
    expect(plain((await page(gateway)).html)).toBe(true);
    game.answer = async () => ({ status: 503, body: { message: 'busy' } });
    expect(plain((await page(gateway)).html)).toBe(true);
    game.answer = async () => ({ status: 200, body: { winners: [{ nope: true }] } });
    expect(plain((await page(gateway)).html)).toBe(true);

    // A game that holds its answer: the page goes without the list, and the next one has it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    game.answer = async () => {
      await held;
      return { status: 200, body: WINNERS };
    };
    expect(plain((await page(gateway)).html)).toBe(true);
    release();
    await expect.poll(async () => rows((await page(gateway)).html).length).toBe(2);
  });

  it('keeps the last list read while the game is away, and reads again in the background', async () => {
    game.answer = async () => ({ status: 200, body: WINNERS });
    await expect.poll(async () => rows((await page(gateway)).html).length).toBe(2);
    await game.standIn.close();
    const { html } = await page(gateway);
    expect(rows(html)).toHaveLength(2);
  });

  it('is sent when the gateway has no list yet and the game does not answer within the wait', async () => {
    const slow = new Game();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    slow.answer = async () => {
      await held;
      return { status: 200, body: WINNERS };
    };
    await slow.start();
    const waiting = await drawingGateway(slow, { WINNERS_PAGE_WAIT_MS: '100' });
    try {
      expect(plain((await page(waiting)).html)).toBe(true);
      expect(slow.reads).toBe(1);
      release();
      await expect.poll(async () => rows((await page(waiting)).html).length).toBe(2);
    } finally {
      release();
      await waiting.close();
      await slow.standIn.close();
    }
  });

  it('is the only page when drawing is off', async () => {
    const off = await drawingGateway('http://127.0.0.1:9', { WINNERS_PAGE_TTL_MS: '0' });
    try {
      expect(plain((await page(off)).html)).toBe(true);
    } finally {
      await off.close();
    }
  });
});
