// The outside world's view: HTTP through the gateway only, every request counted in the figures.
import { ERROR_CODE } from '@omc/contracts';
import { samplePath } from '@omc/testkit';
import { randomBytes } from 'node:crypto';
import { figures, suite } from './context.js';

export interface Answer<T = any> {
  /** 0 when no answer came (connection refused or reset, or the timeout). */
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  /** Sent as is (for malformed or oversized bodies); `body` is JSON-encoded otherwise. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  cookie?: string;
  baseUrl?: string;
  timeoutMs?: number;
}

export async function call<T = any>(
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.cookie) headers.cookie = options.cookie;
  let body: string | Buffer | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  figures.requests += 1;
  try {
    // A catalogue path's parameters (`/api/user/sessions/:id`) get a sample value: the gateway refuses
    // a path that is not a route's one spelling, and `:` is not in any.
    const response = await fetch(`${options.baseUrl ?? suite().gatewayUrl}${samplePath(path)}`, {
      method,
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
    const text = await response.text();
    let parsed: any = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const key = `${Math.floor(response.status / 100)}xx`;
    figures.requestsByStatus[key] = (figures.requestsByStatus[key] ?? 0) + 1;
    return { status: response.status, body: parsed, text, headers: response.headers };
  } catch {
    figures.requestsByStatus['none'] = (figures.requestsByStatus['none'] ?? 0) + 1;
    return { status: 0, body: undefined as T, text: '', headers: new Headers() };
  }
}

/**
 * A call whose answer must be the system's judgment of the request: a click the gateway shed for overload
 * (503 OVERLOADED: not judged, only not let in now) is sent again after its Retry-After, as the web app
 * does (web/src/features/game/busyRetry.ts), up to five times. Probes of every route use it, so a busy
 * machine's shedding never stands in for the answer they check.
 */
export async function judged<T = any>(
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Answer<T>> {
  for (let attempt = 1; ; attempt++) {
    const answer = await call<T>(method, path, options);
    const shed =
      answer.status === 503 && (answer.body as { code?: string } | undefined)?.code === ERROR_CODE.OVERLOADED;
    if (!shed || attempt >= 5) return answer;
    await sleep(1000 * (Number(answer.headers.get('retry-after') ?? 1) || 1));
  }
}

/** The refresh cookie set by a login, register or refresh answer, as a Cookie header value. */
export function refreshCookie(answer: Answer): string | undefined {
  const cookies = answer.headers.getSetCookie();
  const pairs = cookies.map((c) => c.split(';')[0]!).filter((c) => c.includes('=') && !c.endsWith('='));
  return pairs.length ? pairs.join('; ') : undefined;
}

export interface Player {
  username: string;
  email: string;
  password: string;
  token: string;
  cookie?: string;
}

export function uniqueName(prefix = 'p'): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

export async function registerPlayer(prefix = 'p'): Promise<Player> {
  const username = uniqueName(prefix);
  const email = `${username}@example.com`;
  const password = 'secret-password-1';
  for (let attempt = 0; ; attempt++) {
    const answer = await call('POST', '/api/user/register', { body: { username, email, password } });
    if (answer.status === 200 || answer.status === 201)
      return { username, email, password, token: answer.body.token, cookie: refreshCookie(answer) };
    if (attempt >= 20 || (answer.status >= 400 && answer.status < 500))
      throw new Error(`register ${username}: ${answer.status} ${answer.text}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function login(
  emailOrUsername: string,
  password: string,
): Promise<{ token: string; cookie?: string }> {
  // A 503 says "try again in a moment" (a store slower than its deadline on a busy machine): the player
  // signs in again after its Retry-After, as the message asks; any other refusal is the answer.
  for (let attempt = 1; ; attempt++) {
    const answer = await call('POST', '/api/user/login', { body: { emailOrUsername, password } });
    if (answer.status === 200) return { token: answer.body.token, cookie: refreshCookie(answer) };
    if (answer.status !== 503 || attempt >= 5)
      throw new Error(`login ${emailOrUsername}: ${answer.status} ${answer.text}`);
    await sleep(1000 * Number(answer.headers.get('retry-after') ?? 1));
  }
}

export async function loginAdmin(): Promise<Player> {
  const { admin } = suite();
  const session = await login(admin.username, admin.password);
  return { ...admin, ...session };
}

/**
 * Changes a user's role as the admin routes allow: the admin (`adminToken`) asks with their password; a grant that waits for a second admin is approved by the deputy. Returns the answer
 * that made the change (200, or 202 when the game had not confirmed it in time).
 */
export async function updateRole(
  adminToken: string,
  email: string,
  role: 'standard' | 'superuser' | 'admin',
  /** The asking admin's password: the bootstrap admin's unless another admin asks. */
  password = suite().admin.password,
): Promise<Answer> {
  const asked = await call('POST', '/api/admin/updateRole', {
    token: adminToken,
    body: { email, role, ...(role === 'standard' ? {} : { currentPassword: password }) },
  });
  return approvedIfPending(asked);
}

/** A request that waits for a second admin (202 pending), approved by the deputy; any other answer as is. */
export async function approvedIfPending(asked: Answer): Promise<Answer> {
  if (asked.status !== 202 || asked.body?.approval?.status !== 'pending') return asked;
  const { deputy } = suite();
  // One sign-in a few minutes, well inside the access token's life; the password goes with each approval.
  if (!deputySession || Date.now() - deputySession.at > 180_000)
    deputySession = { at: Date.now(), token: (await login(deputy.username, deputy.password)).token };
  return call('POST', `/api/admin/approvals/${asked.body.approval.id}/approve`, {
    token: deputySession.token,
    body: { currentPassword: deputy.password },
    timeoutMs: 20_000,
  });
}
let deputySession: { at: number; token: string } | undefined;

/** Gives a user a role through the admin's public routes; the player signs in again to carry it. */
export async function grantRole(
  adminToken: string,
  player: Player,
  role: 'standard' | 'superuser' | 'admin',
): Promise<Player> {
  const answer = await updateRole(adminToken, player.email, role);
  // 202: the role is changed, the game had not confirmed it yet (its event brings it there).
  if (answer.status !== 200 && answer.status !== 202)
    throw new Error(`updateRole ${player.username}: ${answer.status} ${answer.text}`);
  return { ...player, ...(await login(player.username, player.password)) };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls until `check` gives a truthy value; returns it and how long it took, or throws naming `what`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
  everyMs = 200,
): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  let last: unknown;
  while (Date.now() - started < timeoutMs) {
    try {
      const value = await check();
      if (value) return { value, ms: Date.now() - started };
    } catch (error) {
      last = error;
    }
    await sleep(everyMs);
  }
  throw new Error(
    `${what} did not happen within ${timeoutMs} ms${last ? ` (last error: ${(last as Error).message})` : ''}`,
  );
}
