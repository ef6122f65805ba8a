// A typed client of the public API for integrators (bots, stats sites, a mobile client) and for the
// web app: one call per operation, its input typed by the request schemas and its answer parsed with
// the response schema. Errors come back as ApiClientError with the server's message, code and field.
import { ErrorBody } from '@omc/contracts';
import type { z } from 'zod';
import type { Operation } from './operations.js';

export class ApiClientError extends Error {
  constructor(
    /** HTTP status; 0 when no answer came. */
    readonly status: number,
    /** The server's error body, when it sent one. */
    readonly body: ErrorBody | undefined,
  ) {
    super(body?.message ?? `request failed with status ${status}`);
    this.name = 'ApiClientError';
  }
  get code(): string | undefined {
    return this.body?.code;
  }
  get field(): string | undefined {
    return this.body?.field;
  }
}

type Part<S, K extends string> = S extends z.ZodType ? { [P in K]: z.input<S> } : { [P in K]?: never };

/** What one call takes: body, query and path parameters as its operation declares them. */
export type InputOf<O extends Operation> = Part<O['body'], 'body'> &
  Partial<Part<O['query'], 'query'>> &
  Part<O['params'], 'params'> & { signal?: AbortSignal };

export type OutputOf<O extends Operation> = z.output<O['response']>;

export interface ClientOptions {
  /** The gateway's origin (`https://clicks.example`); empty for same-origin calls from the web app. */
  baseUrl?: string;
  /** The access token to send, read at each call (it changes on refresh). */
  token?: () => string | null | undefined;
  fetch?: typeof fetch;
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
      };
      const headers: Record<string, string> = { accept: 'application/json' };
      const token = options.token?.();
      if (token && !operation.credentials) headers.authorization = `Bearer ${token}`;
      else if (
        token &&
        operation.path !== '/api/user/refresh' &&
        operation.path !== '/api/user/refresh/logout'
      )
        headers.authorization = `Bearer ${token}`;
      let body: string | undefined;
      if (given.body !== undefined) {
        headers['content-type'] = operation.form ? 'application/x-www-form-urlencoded' : 'application/json';
        body = operation.form
          ? new URLSearchParams(given.body as Record<string, string>).toString()
          : JSON.stringify(given.body);
      }
      const url = `${options.baseUrl ?? ''}${pathOf(operation.path, given.params)}${queryOf(given.query)}`;
      let response: Response;
      try {
        response = await send(url, {
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
        const error = ErrorBody.safeParse(json);
        throw new ApiClientError(response.status, error.success ? error.data : undefined);
      }
      const parsed = operation.response.safeParse(json);
      if (!parsed.success) throw new ApiClientError(response.status, undefined);
      return parsed.data as never;
    },
  };
}
