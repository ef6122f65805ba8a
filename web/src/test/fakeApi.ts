// A stand-in for the gateway in component tests: each route answers what the test says, every call is
// recorded, and an unexpected call fails the test.
import { PACKS, packView, ROUTES } from '@omc/contracts';
import { vi } from 'vitest';

const PUBLIC_ROUTES = new Set(ROUTES.map((r) => `${r.method} ${r.path}`));
/** Routes with a parameter (`/api/user/sessions/:id`) as patterns: a call names its template. */
const TEMPLATES = ROUTES.filter((r) => r.path.includes('/:')).map((r) => ({
  key: `${r.method} ${r.path}`,
  method: r.method,
  pattern: new RegExp(`^${r.path.replace(/:[a-zA-Z]+/g, '[^/]+')}$`),
}));
const templateOf = (method: string, path: string): string =>
  TEMPLATES.find((t) => t.method === method && t.pattern.test(path))?.key ?? `${method} ${path}`;

export interface Call {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  credentials: RequestCredentials | undefined;
}

export type Handler = (call: Call) => Response | Promise<Response>;

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

export const DEFAULT_RULES = {
  roundTarget: 100,
  milestones: [
    { at: 10, freeClicks: 100 },
    { at: 50, freeClicks: 500 },
    { at: 100, winsPot: true },
  ],
  // The packs as the game serves them (the game's own tests spell them out against the client contract).
  packs: PACKS.map(packView),
};

export function profile(overrides: Record<string, unknown> = {}) {
  return {
    username: 'ana',
    email: 'ana@example.com',
    role: 'standard',
    adminBalance: null,
    paypalEmail: null,
    freeClicks: 10,
    purchasedClicks: 0,
    hasInfiniteClicks: false,
    potEarned: 0,
    ...overrides,
  };
}

/** A game that answers state, rules and profile by default; tests override any route. */
export function fakeApi(routes: Record<string, Handler> = {}) {
  const calls: Call[] = [];
  const defaults: Record<string, Handler> = {
    'GET /api/game/state': () =>
      json(200, { gameState: { globalClicks: 41, pot: 12.5, lastWinner: null, lastClickUser: 'bea' } }),
    'GET /api/game/rules': () => json(200, DEFAULT_RULES),
    'GET /api/user/profile': () => json(200, profile()),
    'GET /api/winners': () => json(200, { winners: [], nextCursor: null }),
    'POST /api/user/refresh/logout': () => json(200, { message: 'bye' }),
    'GET /api/user/sessions': () => json(200, { sessions: [] }),
  };
  const table = { ...defaults, ...routes };
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    const call: Call = {
      method,
      path: url.pathname,
      headers: Object.fromEntries(
        Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]),
      ),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
      credentials: init.credentials,
    };
    calls.push(call);
    // The app may only call routes the contracts publish: a renamed server route fails here first.
    const key = templateOf(method, url.pathname);
    if (!PUBLIC_ROUTES.has(key))
      throw new Error(`${method} ${url.pathname} is not a route in @omc/contracts ROUTES`);
    const handler = table[key];
    if (!handler) throw new Error(`unexpected call ${method} ${url.pathname}`);
    return handler(call);
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    calls,
    fetchMock,
    callsTo: (method: string, path: string) => calls.filter((c) => c.method === method && c.path === path),
  };
}

/** A promise the test settles when it wants. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** An unsigned token with the claims the browser reads. */
export function makeToken(claims: {
  username?: string;
  role?: string;
  exp: number;
  sub?: string;
  sv?: number;
}): string {
  const encode = (value: object) =>
    btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${encode({ alg: 'EdDSA', typ: 'JWT' })}.${encode({ sub: '7f1c1b1e-8d7a-4d3c-9b1e-1a2b3c4d5e6f', username: 'ana', role: 'standard', ...claims })}.signature`;
}

export function storeSession(
  token: string,
  identity: { username?: string; email?: string; role?: string } = {},
) {
  window.localStorage.setItem('token', token);
  window.localStorage.setItem('username', identity.username ?? 'ana');
  window.localStorage.setItem('email', identity.email ?? 'ana@example.com');
  window.localStorage.setItem('role', identity.role ?? 'standard');
}
