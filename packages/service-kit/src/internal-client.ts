// One client for every call a service makes to another's internal routes (contracts' INTERNAL): the
// caller's credential, the player's token and request id when the call acts for a request, the deadline,
// the JSON body, and the answer read against the route's schema. It never throws for what the other
// service did: each call ends in one of four outcomes, and the caller decides what a refusal or no answer
// means on its own path (no money moves, the event is retried, the figure is left out).
import {
  INTERNAL_PREFIX,
  type InternalAnswerOf,
  type InternalBody,
  type InternalRouteContract,
  type Service,
} from '@omc/contracts';
import { forwardedHeaders, type Caller } from './caller.js';
import type { ServiceCredentials } from './service-credential.js';

/** The fields of an error body a refusal's reader may use; each absent when not of its type. */
export interface RefusalBody {
  message?: string;
  code?: string;
  field?: string;
}

export type InternalOutcome<T> =
  /** A 2xx whose body is the route's answer (undefined for a route whose answer is not read). */
  | { kind: 'answered'; status: number; data: T }
  /** Any other status, with the error body's fields and the headers (Retry-After). */
  | { kind: 'refused'; status: number; body: RefusalBody; headers: Headers }
  /** A 2xx whose body is not the route's answer. */
  | { kind: 'unreadable'; status: number }
  /** No answer: unreachable, reset, or past the deadline (`reason` says which). */
  | { kind: 'unanswered'; reason: string };

export interface InternalCall<R extends InternalRouteContract> {
  /** The path's parameters, each named in the route's path (`:userId`). */
  params?: Record<string, string | number>;
  query?: Record<string, string>;
  body?: InternalBody<R>;
  /** The request the call acts for: the player's token and the request id go along. */
  caller?: Caller;
  /** The deadline of this call, when not its callee's. */
  timeoutMs?: number;
}

export interface InternalClientOptions {
  credentials: ServiceCredentials;
  /** Where each service this one calls answers (its main listener). */
  urls: Partial<Record<Service, string>>;
  /** Where a service's internal listener answers, for the routes the catalogue puts there. */
  internalUrls?: Partial<Record<Service, string>>;
  /** Each callee's deadline in ms. */
  timeoutMs: Partial<Record<Service, number>>;
  /** The HTTP client (global fetch; a test may hand in another). */
  fetch?: typeof fetch;
}

/** The route's path with its parameters filled in; a parameter the route names and the call lacks throws. */
export function internalPath(
  route: InternalRouteContract,
  params: Record<string, string | number> = {},
): string {
  return route.path.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${route.path}: the parameter ${name} is missing`);
    return encodeURIComponent(String(value));
  });
}

function readRefusal(body: unknown): RefusalBody {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const text = (key: string) => (typeof fields[key] === 'string' ? (fields[key] as string) : undefined);
  const out: RefusalBody = {};
  for (const key of ['message', 'code', 'field'] as const) {
    const value = text(key);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

export class InternalClient {
  private readonly fetch: typeof fetch;

  constructor(private readonly options: InternalClientOptions) {
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  async call<R extends InternalRouteContract>(
    route: R,
    call: InternalCall<R> = {},
  ): Promise<InternalOutcome<InternalAnswerOf<R>>> {
    const base =
      route.listener === 'internal'
        ? this.options.internalUrls?.[route.service]
        : this.options.urls[route.service];
    if (!base || !route.path.startsWith(INTERNAL_PREFIX))
      throw new Error(`no internal address for ${route.method} ${route.path} on ${route.service}`);
    const query = call.query ? `?${new URLSearchParams(call.query)}` : '';
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(call.caller ? forwardedHeaders(call.caller) : {}),
      ...this.options.credentials.headersFor(route.service),
    };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const timeoutMs = call.timeoutMs ?? this.options.timeoutMs[route.service] ?? 5_000;
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(`${base}${internalPath(route, call.params)}${query}`, {
        method: route.method,
        headers,
        ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      const name = (error as Error).name;
      return { kind: 'unanswered', reason: name === 'TimeoutError' ? 'timed out' : (error as Error).message };
    }
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      return response.ok
        ? { kind: 'unreadable', status: response.status }
        : { kind: 'refused', status: response.status, body: {}, headers: response.headers };
    }
    if (!response.ok)
      return { kind: 'refused', status: response.status, body: readRefusal(body), headers: response.headers };
    if (!route.response) return { kind: 'answered', status: response.status, data: undefined as never };
    const parsed = route.response.safeParse(body);
    return parsed.success
      ? { kind: 'answered', status: response.status, data: parsed.data as InternalAnswerOf<R> }
      : { kind: 'unreadable', status: response.status };
  }
}

/** The settings a service's internal client is made from: each callee's address and deadline it has. */
export interface InternalClientSettings {
  AUTH_URL?: string;
  GAME_URL?: string;
  /** The game's internal listener (its INTERNAL_PORT), where auth's and payments' calls to it go. */
  GAME_INTERNAL_URL?: string;
  PAYMENTS_URL?: string;
  AUTH_TIMEOUT_MS?: number;
  GAME_TIMEOUT_MS?: number;
  PAYMENTS_TIMEOUT_MS?: number;
  /** The deadline of a callee without one of its own. */
  UPSTREAM_TIMEOUT_MS?: number;
}

/** A service's internal client, from the addresses and deadlines its configuration names. */
export function internalClientFrom(
  credentials: ServiceCredentials,
  config: InternalClientSettings,
): InternalClient {
  const fallback = config.UPSTREAM_TIMEOUT_MS;
  const defined = <T>(entries: [Service, T | undefined][]) =>
    Object.fromEntries(entries.filter(([, value]) => value !== undefined)) as Partial<Record<Service, T>>;
  return new InternalClient({
    credentials,
    urls: defined([
      ['auth', config.AUTH_URL],
      ['game', config.GAME_URL],
      ['payments', config.PAYMENTS_URL],
    ]),
    internalUrls: defined([['game', config.GAME_INTERNAL_URL]]),
    timeoutMs: defined([
      ['auth', config.AUTH_TIMEOUT_MS ?? fallback],
      ['game', config.GAME_TIMEOUT_MS ?? fallback],
      ['payments', config.PAYMENTS_TIMEOUT_MS ?? fallback],
    ]),
  });
}

/** Why an outcome is not an answer, for a log line or an error message. */
export function outcomeReason(outcome: InternalOutcome<unknown>): string {
  switch (outcome.kind) {
    case 'answered':
      return `status ${outcome.status}`;
    case 'refused':
      return `status ${outcome.status}`;
    case 'unreadable':
      return 'answer does not match the contract';
    case 'unanswered':
      return outcome.reason;
  }
}
