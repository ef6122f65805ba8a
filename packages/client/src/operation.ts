// What an operation of the public API is: its method and path, and the catalogue's schemas of its
// body, query, path parameters and answer.
import type { z } from 'zod';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Operation<
  R extends z.ZodType = z.ZodType,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  P extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: Method;
  path: string;
  response: R;
  body: B;
  query: Q;
  params: P;
  /** The body is sent form-encoded (the provider's webhook) rather than as JSON. */
  form?: boolean;
  /** Sends the refresh cookie (login, register, refresh, logout). */
  credentials?: boolean;
}

export function op<
  R extends z.ZodType,
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  P extends z.ZodType | undefined = undefined,
>(
  method: Method,
  path: string,
  parts: { response: R; body?: B; query?: Q; params?: P; form?: boolean; credentials?: boolean },
): Operation<R, B, Q, P> {
  return {
    method,
    path,
    response: parts.response,
    body: parts.body as B,
    query: parts.query as Q,
    params: parts.params as P,
    form: parts.form,
    credentials: parts.credentials,
  };
}
