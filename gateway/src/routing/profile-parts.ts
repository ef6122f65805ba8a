// The reads behind the one-hop profile: a keep-alive pool per owner, the caller's headers passed on,
// a read sent once more when a replica was lost, and a part read under its own time limit and contract.
import type { FastifyRequest } from 'fastify';
import { Pool } from 'undici';
import type { z } from 'zod';
import type { Config } from '../config.js';

export type Part<T> = { ok: true; data: T } | { ok: false; reason: string };

/** Keep-alive connections to one owner of a part of the profile. */
export function profilePool(url: string, config: Config): Pool {
  return new Pool(url, {
    connections: 64,
    keepAliveTimeout: 30_000,
    connect: { timeout: 2_000 },
    headersTimeout: config.UPSTREAM_TIMEOUT_MS,
    bodyTimeout: config.UPSTREAM_TIMEOUT_MS,
  });
}

/** The caller's request id, address, token and language, as each owner reads them. */
export function callerHeaders(
  request: FastifyRequest,
  extra: Record<string, string> = {},
): Record<string, string> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'x-request-id': request.id,
    'x-forwarded-for': request.ip,
    'x-forwarded-proto': request.protocol,
    'x-forwarded-host': request.host,
    ...extra,
  };
  if (request.headers.authorization) headers.authorization = request.headers.authorization;
  if (request.headers['accept-language']) headers['accept-language'] = request.headers['accept-language'];
  // With tracing on, the SDK's undici instrumentation adds our trace context.
  return headers;
}

/** A read, sent once more when its kept-alive connection closed unanswered (a replica lost). */
export async function read(
  upstream: Pool,
  path: string,
  headers: Record<string, string>,
  signal?: AbortSignal,
) {
  try {
    return await upstream.request({ path, method: 'GET', headers, signal });
  } catch (error) {
    if ((error as { code?: string }).code !== 'UND_ERR_SOCKET') throw error;
    return upstream.request({ path, method: 'GET', headers, signal });
  }
}

/** One owner's part: its data, or why it is missing (an error, no answer within `timeoutMs`, off contract). */
export async function readPart<S extends z.ZodType>(
  upstream: Pool,
  path: string,
  schema: S,
  request: FastifyRequest,
  timeoutMs: number,
): Promise<Part<z.infer<S>>> {
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    const response = await read(upstream, path, callerHeaders(request), signal);
    if (response.statusCode !== 200) {
      await response.body.dump();
      return { ok: false, reason: `status ${response.statusCode}` };
    }
    const parsed = schema.safeParse(await response.body.json());
    return parsed.success
      ? { ok: true, data: parsed.data }
      : { ok: false, reason: 'answer does not match the contract' };
  } catch (error) {
    const e = error as Error;
    return {
      ok: false,
      reason: e.name === 'TimeoutError' || e.name === 'AbortError' ? 'timed out' : e.message,
    };
  }
}
