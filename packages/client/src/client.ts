// A typed client of the public API for integrators (bots, stats sites, a mobile client) and for the
// web app: one call per operation, its input typed by the request schemas and its answer parsed with
// the response schema. Errors come back as ApiClientError with the server's message, code and field.
import { ErrorBody, type ErrorCode } from '@omc/contracts';
import type { z } from 'zod';
import type { Operation } from './operation.js';

/** What an error answer said besides its status. */
export interface ErrorDetails {
  /** The error's `code` (contracts' error list), when the server gave one. */
  code?: string;
  /** The input a 400 is about. */
  field?: string;
  /** Seconds the server asked to wait before trying again (Retry-After), if it said. */
  retryAfterS?: number;
  /** Whether the answer was JSON at all (a proxy's or a crashed server's page is not). */
  json?: boolean;
}

/** The one error of every call: the status, the server's own message (or none) and its details. */
export class ApiClientError extends Error {
  constructor(
    /** HTTP status; 0 when no answer came. */
    readonly status: number,
    /** What the server said, when it said something readable; else the caller shows its own text. */
    readonly serverMessage: string | undefined,
    readonly details: ErrorDetails = {},
  ) {
    super(serverMessage ?? `request failed with status ${status}`);
    this.name = 'ApiClientError';
  }
  get code(): string | undefined {
    return this.details.code;
  }
  get field(): string | undefined {
    return this.details.field;
  }
  get retryAfterS(): number | undefined {
    return this.details.retryAfterS;
  }
  get json(): boolean {
    return this.details.json ?? false;
  }
}

/**
 * A code of the contracts' error list, checked by the compiler: a bundle keeps the name alone, not the
 * list with every code's status and text (as importing `ERROR_CODE` would).
 */
export const errorCode = <C extends ErrorCode>(code: C): C => code;

/**
 * Whether an error says the session behind `token` is over: suspended (on any call, at any status), or
 * any 401 to a call that sent a token (ended, signed out everywhere, a security change, expired).
 */
export function refusesSession(error: ApiClientError, token: string | undefined): boolean {
  return error.code === errorCode('ACCOUNT_SUSPENDED') || (error.status === 401 && token !== undefined);
}

type Part<S, K extends string> = S extends z.ZodType ? { [P in K]: z.input<S> } : { [P in K]?: never };

/** What one call takes: body, query and path parameters as its operation declares them. */
export type InputOf<O extends Operation> = Part<O['body'], 'body'> &
  Partial<Part<O['query'], 'query'>> &
  Part<O['params'], 'params'> & {
    signal?: AbortSignal;
    /** The access token of this call, instead of the client's `token()`; null sends none. */
    token?: string | null;
  };

export type OutputOf<O extends Operation> = z.output<O['response']>;

export interface ClientOptions {
  /** The gateway's origin (`https://clicks.example`); empty for same-origin calls from the web app. */
  baseUrl?: string;
  /** The access token to send, read at each call (it changes on refresh). */
  token?: () => string | null | undefined;
  fetch?: typeof fetch;
  /** Told of every answer that refuses the session of the token the call sent (`refusesSession`). */
  onSessionRefused?: (error: ApiClientError, token: string | undefined) => void;
  /** Told of an answer that does not match its operation's response schema. */
  onUnexpectedAnswer?: (path: string, error: z.ZodError) => void;
}

/** An input with nothing required may be left out of the call. */
type Empty = Record<never, never>;

export interface ApiClient {
  call<O extends Operation>(
    operation: O,
    ...input: Empty extends InputOf<O> ? [InputOf<O>?] : [InputOf<O>]
  ): Promise<OutputOf<O>>;
}

/** `/api/admin/users/:id/suspend` with `{ id }` -> `/api/admin/users/<id>/suspend`. */
export function pathOf(template: string, params: Record<string, unknown> = {}): string {
  return template.replace(/:([A-Za-z_]\w*)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${template} needs the path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
}

/** The error answer read leniently: a proxy or an older server may send only some of the keys. */
function errorOf(response: Response, json: unknown): ApiClientError {
  const parsed = ErrorBody.partial().safeParse(json);
  const body = parsed.success ? parsed.data : {};
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
  return new ApiClientError(response.status, body.error ?? body.message ?? body.msg, {
    code: body.code,
    field: body.field,
    retryAfterS: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
    json: json !== undefined,
  });
}

function queryOf(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

export function createClient(options: ClientOptions = {}): ApiClient {
  const send = options.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));
  return {
    async call(operation, ...[input]) {
      const given = (input ?? {}) as {
        body?: unknown;
        query?: Record<string, unknown>;
        params?: Record<string, unknown>;
        signal?: AbortSignal;
        token?: string | null;
      };
      const headers: Record<string, string> = { accept: 'application/json' };
      const token = (given.token === undefined ? options.token?.() : given.token) ?? undefined;
      // The refresh route never sends the access token; logout does, so its session ends without the cookie.
      const sendsToken = token !== undefined && token !== '' && operation.path !== '/api/user/refresh';
      if (sendsToken) headers.authorization = `Bearer ${token}`;
      let body: string | undefined;
      if (given.body !== undefined) {
        headers['content-type'] = operation.form ? 'application/x-www-form-urlencoded' : 'application/json';
        body = operation.form
          ? new URLSearchParams(given.body as Record<string, string>).toString()
          : JSON.stringify(given.body);
      }
      const path = `${pathOf(operation.path, given.params)}${queryOf(given.query)}`;
      let response: Response;
      try {
        response = await send(`${options.baseUrl ?? ''}${path}`, {
          method: operation.method,
          headers,
          body,
          credentials: operation.credentials ? 'include' : 'same-origin',
          signal: given.signal,
        });
      } catch (error) {
        if ((error as Error).name === 'AbortError') throw error;
        throw new ApiClientError(0, undefined);
      }
      const json = (response.headers.get('content-type') ?? '').includes('application/json')
        ? await response.json().catch(() => undefined)
        : undefined;
      if (!response.ok) {
        const error = errorOf(response, json);
        const sent = sendsToken ? token : undefined;
        if (refusesSession(error, sent)) options.onSessionRefused?.(error, sent);
        throw error;
      }
      const parsed = operation.response.safeParse(json);
      if (!parsed.success) {
        options.onUnexpectedAnswer?.(path, parsed.error);
        throw new ApiClientError(response.status, undefined, { json: json !== undefined });
      }
      return parsed.data as never;
    },
  };
}
