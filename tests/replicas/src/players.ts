// What players do, through the one balancer in front of the gateways, as the web client does it. Every
// answer is kept so the matrix can compare what players were told with what the stores recorded.
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';

export interface Answer {
  /** 0 when no answer came (refused, reset or timed out). */
  status: number;
  body: any;
  /** The Retry-After header of the answer, if any. */
  retryAfter?: string | null;
}

export interface Counters {
  requests: number;
}

export const counters: Counters = { requests: 0 };

let baseUrl = '';
export function useBaseUrl(url: string): void {
  baseUrl = url;
}

export async function call(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  counters.requests += 1;
  try {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    const body = bodyOf(await response.text());
    return { status: response.status, body, retryAfter: response.headers.get('retry-after') };
  } catch {
    return { status: 0, body: undefined };
  }
}

/** An answer's body: its JSON, the text itself when it is not JSON, undefined when empty. */
function bodyOf(text: string): any {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A probe's answer: how long it took, and what went wrong when none came. */
export interface ProbeAnswer extends Answer {
  ms: number;
  /** Why no answer came (status 0): the error's code or message, "timeout" past `timeoutMs`. */
  error?: string;
}

/**
 * One request on a connection of its own, for a probe that times the system: a kept-alive connection of
 * the shared pool that the other side is closing at that moment fails at once, which is the pool's
 * doing, not the system's (a browser sends such a request again on a new connection by itself).
 */
export function requestAlone(
  method: string,
  path: string,
  options: { token?: string; timeoutMs: number },
): Promise<ProbeAnswer> {
  const started = performance.now();
  const headers: Record<string, string> = { connection: 'close' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (method !== 'GET' && method !== 'HEAD') headers['content-length'] = '0';
  counters.requests += 1;
  return new Promise((resolve) => {
    const done = (answer: Omit<ProbeAnswer, 'ms'>) =>
      resolve({ ...answer, ms: Math.round(performance.now() - started) });
    const req = httpRequest(`${baseUrl}${path}`, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', (error) => done({ status: 0, body: undefined, error: error.message }));
      res.on('end', () => {
        clearTimeout(timer);
        const body = bodyOf(text);
        const retryAfter = res.headers['retry-after'];
        done({
          status: res.statusCode ?? 0,
          body,
          retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
        });
      });
    });
    const timer = setTimeout(() => req.destroy(new Error('timeout')), options.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      done({ status: 0, body: undefined, error: error.code ?? error.message });
    });
    req.end();
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface Player {
  username: string;
  token: string;
}

export async function register(prefix: string): Promise<Player> {
  const username = `${prefix}_${randomBytes(5).toString('hex')}`;
  for (let attempt = 0; ; attempt++) {
    const answer = await call('POST', '/api/user/register', {
      body: { username, email: `${username}@example.com`, password: 'secret-password-1' },
    });
    if (answer.status === 200 || answer.status === 201) return { username, token: answer.body.token };
    if (attempt >= 40 || (answer.status >= 400 && answer.status < 500))
      throw new Error(`register ${username}: ${answer.status} ${JSON.stringify(answer.body)}`);
    await sleep(500);
  }
}

export interface GameProfile {
  freeClicks: number;
  purchasedClicks: number;
}

export async function gameProfile(player: Player): Promise<GameProfile | undefined> {
  const answer = await call('GET', '/api/game/profile', { token: player.token });
  return answer.status === 200 ? answer.body : undefined;
}

/** The game learns of a sign-up by event: waits until it knows the player. */
export async function untilGameKnows(player: Player, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await gameProfile(player)) return;
    await sleep(200);
  }
  throw new Error(`the game did not learn of ${player.username} within ${timeoutMs} ms`);
}

export interface ClickRecord {
  user: string;
  status: number;
  round?: number;
  globalClicks?: number;
  won?: boolean;
  at: number;
}

export async function click(player: Player): Promise<ClickRecord> {
  const answer = await call('POST', '/api/game/click', { token: player.token });
  const record: ClickRecord = { user: player.username, status: answer.status, at: Date.now() };
  if (answer.status === 200) {
    record.round = answer.body.round;
    record.globalClicks = answer.body.globalClicks;
    record.won = answer.body.won === true;
  }
  return record;
}

export interface PurchaseRecord {
  user: string;
  key: string;
  status: number;
  success: boolean;
  transactionId?: string;
}

/** Buys the 100-click pack (0.99) with the provider's test nonce, under a fresh idempotency key. */
export async function buyPack(player: Player, key = `rep_${randomBytes(8).toString('hex')}`) {
  const answer = await call('POST', '/api/payments/checkout', {
    token: player.token,
    body: { paymentMethodNonce: 'fake-valid-nonce', amount: '0.99', idempotencyKey: key },
    timeoutMs: 20_000,
  });
  const record: PurchaseRecord = {
    user: player.username,
    key,
    status: answer.status,
    success: answer.status === 200 && answer.body?.success === true,
    transactionId: answer.body?.transactionId,
  };
  return record;
}

/** Buys until one purchase succeeds (a store may be stalled): a retry keeps its key, so it never pays twice. */
export async function buyPackSurely(player: Player, timeoutMs = 60_000): Promise<PurchaseRecord> {
  const key = `rep_${randomBytes(8).toString('hex')}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = await buyPack(player, key);
    if (record.success || Date.now() > deadline) return record;
    await sleep(500);
  }
}

/**
 * Steady traffic: each player clicks, buys a pack when out of clicks, and pauses; a watcher fetches the
 * web app, the winners page and the winners list as a visitor's browser would, counting every answer
 * that is not a 200.
 */
export class Traffic {
  readonly clicks: ClickRecord[] = [];
  readonly purchases: PurchaseRecord[] = [];
  readonly unserved: { path: string; status: number; at: number }[] = [];
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(
    private readonly players: Player[],
    private readonly pauseMs: number,
  ) {}

  start(): void {
    this.running = true;
    this.loops = [...this.players.map((p) => this.playerLoop(p)), this.watchLoop()];
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async playerLoop(player: Player): Promise<void> {
    while (this.running) {
      const record = await click(player);
      this.clicks.push(record);
      if (record.status === 403) this.purchases.push(await buyPack(player));
      else if (record.status === 0 || record.status >= 500) await sleep(200);
      await sleep(this.pauseMs);
    }
  }

  private async watchLoop(): Promise<void> {
    while (this.running) {
      // The winners page is drawn with its list by the gateway, which reads it from the game.
      for (const path of ['/', '/winners', '/api/winners']) {
        const answer = await call('GET', path, { timeoutMs: 5000 });
        if (answer.status !== 200) this.unserved.push({ path, status: answer.status, at: Date.now() });
      }
      await sleep(300);
    }
  }
}
