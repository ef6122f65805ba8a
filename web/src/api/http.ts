// One way to call the API: JSON in, every response parsed with its contracts schema, errors carrying
// the server's message (docs/client-contract.md) or nothing, so the caller shows its translated fallback.
import { ApiClientError } from '@omc/client';
import { ErrorBody } from '@omc/contracts';
import type { z } from 'zod';
import { reportRefusal } from '../session/suspension';

export class ApiError extends Error {
  constructor(
    /** HTTP status, or 0 when the request never got an answer. */
    readonly status: number,
    /** What the server said (`error` or `message`), if anything readable. */
    readonly serverMessage: string | undefined,
    readonly field?: string,
    /** Whether the answer was JSON at all (the client contract tells a non-JSON answer apart). */
    readonly json = false,
    /** Seconds the server asked to wait before trying again (Retry-After), if it said. */
    readonly retryAfterS?: number,
    /** The error's `code` when the server gave one (e.g. EMAIL_NOT_VERIFIED). */
    readonly code?: string,
  ) {
    super(serverMessage ?? `request failed with status ${status}`);
    this.name = 'ApiError';
  }
}

/** The server's message when it sent one, else the translated fallback. */
export function errorText(error: unknown, fallback: string): string {
  if (error instanceof ApiClientError) return error.body?.message ?? fallback;
  return error instanceof ApiError && error.serverMessage ? error.serverMessage : fallback;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  token?: string | null;
  body?: unknown;
  /** Send the refresh cookie (login, register, refresh, logout). */
  credentials?: boolean;
  signal?: AbortSignal;
}

async function readJson(response: Response): Promise<unknown> {
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('application/json')) return undefined;
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

function serverMessageOf(body: unknown): { message?: string; field?: string; code?: string } {
  // Read leniently: a proxy or an older server may send only some of the keys.
  const parsed = ErrorBody.partial().safeParse(body);
  if (!parsed.success) return {};
  return {
    message: parsed.data.error ?? parsed.data.message ?? parsed.data.msg,
    field: parsed.data.field,
    code: parsed.data.code,
  };
}

export async function request<S extends z.ZodType>(
  path: string,
  schema: S,
  options: RequestOptions = {},
): Promise<z.infer<S>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let response: Response;
  try {
    response = await fetch(path, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: options.credentials ? 'include' : 'same-origin',
      signal: options.signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, undefined);
  }
  const body = await readJson(response);
  if (!response.ok) {
    const { message, field, code } = serverMessageOf(body);
    const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
    // A suspension ends the session wherever it is noticed (session/suspension.ts).
    reportRefusal(code, message);
    throw new ApiError(
      response.status,
      message,
      field,
      body !== undefined,
      Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
      code,
    );
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    console.error(`unexpected response from ${path}`, parsed.error);
    throw new ApiError(response.status, undefined, undefined, body !== undefined);
  }
  return parsed.data;
}
