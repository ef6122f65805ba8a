// `/winners` sent with its list already drawn: the first page of winners, read from the game at most
// every WINNERS_PAGE_TTL_MS by each gateway, put into the page the build drew around a list
// (web/scripts/prerender.mjs), with the same rows embedded as data so the app's first render shows them
// (it still asks for the list, as on any visit). A phone then paints the list with the page's first
// bytes instead of after the app and a second round trip. When no list is at hand in time (the game
// slow or away, no winner yet, an older build) the caller sends the page without one, which the app
// fills as before.
import {
  EMBEDDED_WINNERS_ID,
  WINNER_ROWS_MARK,
  WinnersResponse,
  winnerDateFormat,
  winnerRowsHtml,
  winnersListFile,
  type Language,
  type WinnersListShell,
} from '@omc/contracts';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyBaseLogger } from 'fastify';
import { Pool } from 'undici';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

export type Encoding = 'br' | 'gzip' | 'identity';

export interface WinnersPageOptions {
  /** The built web app (WEB_DIST). */
  root: string;
  gameUrl: string;
  log: FastifyBaseLogger;
  /** How long a read list is used before it is read again. */
  ttlMs: number;
  /** How long a page waits for a read under way before it is sent without the list. */
  waitMs: number;
  /** How long a list read a while ago may still be drawn when the game does not answer. */
  staleMs?: number;
}

interface Read {
  at: number;
  page: WinnersResponse;
  /** The data block the app reads, escaped for a <script> element. */
  json: string;
}

/** Drawn pages kept per list read: languages × time zones × encodings, bounded. */
const MAX_DRAWN = 256;
/** Time zones named by cookies and checked, bounded (a cookie is anyone's to write). */
const MAX_ZONES = 512;
const ZONE = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

/** JSON safe inside a <script> element: no `<` to close it, no line separators. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/** The encoding to send: brotli, then gzip, when the client takes it (a q of 0 refuses it). */
export function pickEncoding(acceptEncoding: string | undefined): Encoding {
  const accepted = new Set<string>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (name && !(q && Number(q.slice(2)) === 0)) accepted.add(name);
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return 'identity';
}

export class WinnersPages {
  private readonly game: Pool;
  private readonly templates = new Map<Language, Promise<WinnersListShell | null>>();
  private readonly zones = new Map<string, Intl.DateTimeFormat>();
  private drawn = new Map<string, Promise<Buffer>>();
  private last: Read | undefined;
  private reading: Promise<void> | undefined;

  constructor(private readonly options: WinnersPageOptions) {
    this.game = new Pool(options.gameUrl, { connections: 4, connect: { timeout: 2_000 } });
  }

  /**
   * The page drawn with the first page of winners for a language and time zone, encoded; undefined when
   * there is no list to draw (none read in time, no winner yet, or no template in this build).
   */
  async page(
    language: Language,
    timeZone: string | undefined,
    encoding: Encoding,
  ): Promise<Buffer | undefined> {
    const template = await this.template(language);
    if (!template) return undefined;
    const read = await this.latest();
    if (!read || read.page.winners.length === 0) return undefined;
    const dates = this.zone(timeZone);
    const key = `${language}|${dates.resolvedOptions().timeZone}|${encoding}`;
    let drawn = this.drawn.get(key);
    if (!drawn) {
      if (this.drawn.size >= MAX_DRAWN) this.drawn.clear();
      drawn = this.draw(template, read, dates, encoding);
      this.drawn.set(key, drawn);
      // A page that could not be drawn is not kept: the next request tries again.
      drawn.catch(() => this.drawn.get(key) === drawn && this.drawn.delete(key));
    }
    return drawn;
  }

  async close(): Promise<void> {
    await this.game.close();
  }

  private async draw(
    template: WinnersListShell,
    read: Read,
    dates: Intl.DateTimeFormat,
    encoding: Encoding,
  ): Promise<Buffer> {
    const data = `<script type="application/json" id="${EMBEDDED_WINNERS_ID}" data-read-at="${read.at}">${read.json}</script>`;
    const html = template.page
      .replace(WINNER_ROWS_MARK, () => winnerRowsHtml(template.rows, read.page.winners, dates))
      .replace('</body>', () => `${data}</body>`);
    const bytes = Buffer.from(html);
    if (encoding === 'br')
      return brotli(bytes, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
      });
    if (encoding === 'gzip') return gzipped(bytes, { level: 6 });
    return bytes;
  }

  /**
   * The list to draw: the last one read, read again in the background once older than ttlMs (a page
   * does not wait for it); with none at hand, a read waited for at most waitMs.
   */
  private async latest(): Promise<Read | undefined> {
    const { ttlMs, waitMs, staleMs = 10 * 60_000 } = this.options;
    const usable = () => (this.last && Date.now() - this.last.at < staleMs ? this.last : undefined);
    if (!this.last || Date.now() - this.last.at >= ttlMs)
      this.reading ??= this.read().finally(() => (this.reading = undefined));
    if (usable() || !this.reading) return usable();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.reading, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    return usable();
  }

  private async read(): Promise<void> {
    try {
      const answer = await this.game.request({
        path: '/api/winners',
        method: 'GET',
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(2_000),
      });
      const body = await answer.body.json().catch(() => undefined);
      if (answer.statusCode !== 200) return;
      const page = WinnersResponse.safeParse(body);
      if (!page.success) {
        this.options.log.warn(
          { issues: page.error.issues.length },
          'the game sent a winners page the gateway cannot read',
        );
        return;
      }
      this.last = { at: Date.now(), page: page.data, json: scriptJson(page.data) };
      this.drawn = new Map();
    } catch (error) {
      this.options.log.debug({ err: error }, 'the winners list could not be read for the drawn page');
    }
  }

  /** A formatter for a cookie's time zone; UTC for none, or one that is not a time zone. */
  private zone(name: string | undefined): Intl.DateTimeFormat {
    const key = name && ZONE.test(name) ? name : 'UTC';
    let format = this.zones.get(key);
    if (!format) {
      try {
        format = winnerDateFormat(key);
      } catch {
        format = this.zones.get('UTC') ?? winnerDateFormat('UTC');
      }
      if (this.zones.size >= MAX_ZONES) this.zones.clear();
      this.zones.set(key, format);
    }
    return format;
  }

  /** The language's page drawn around a list, read once; looked for again while the build has none. */
  private async template(language: Language): Promise<WinnersListShell | null> {
    let template = this.templates.get(language);
    if (!template) {
      template = readFile(join(this.options.root, winnersListFile(language)), 'utf8')
        .then((text) => {
          const parsed = JSON.parse(text) as Partial<WinnersListShell>;
          const usable =
            typeof parsed.page === 'string' &&
            parsed.page.includes(WINNER_ROWS_MARK) &&
            typeof parsed.rows?.named === 'string' &&
            typeof parsed.rows.unnamed === 'string';
          return usable ? (parsed as WinnersListShell) : null;
        })
        .catch(() => null);
      this.templates.set(language, template);
    }
    const found = await template;
    if (!found) this.templates.delete(language);
    return found;
  }
}
