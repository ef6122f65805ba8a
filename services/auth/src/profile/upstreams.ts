// Calls to the game and payments services on the caller's behalf: the caller's own token and request
// id, a short timeout, and the answer checked against the contract. A failure is a value, not a throw,
// so the profile can still answer with what it has.
import type { FastifyRequest } from 'fastify';
import { withTraceHeaders } from '@omc/service-kit';
import type { z } from 'zod';
import type { Deps } from '../deps.js';

export type UpstreamResult<T> = { ok: true; data: T } | { ok: false; reason: string };

export async function callUpstream<S extends z.ZodType>(
  deps: Deps,
  url: string,
  schema: S,
  request: FastifyRequest,
): Promise<UpstreamResult<z.infer<S>>> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-request-id': request.id };
  if (request.headers.authorization) headers.authorization = request.headers.authorization;
  try {
    const response = await deps.fetch(url, {
      headers: withTraceHeaders(headers, request),
      signal: AbortSignal.timeout(deps.config.UPSTREAM_TIMEOUT_MS),
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return { ok: false, reason: `status ${response.status}` };
    }
    const parsed = schema.safeParse(await response.json());
    if (!parsed.success) return { ok: false, reason: 'answer does not match the contract' };
    return { ok: true, data: parsed.data };
  } catch (error) {
    return {
      ok: false,
      reason: (error as Error).name === 'TimeoutError' ? 'timed out' : (error as Error).message,
    };
  }
}
