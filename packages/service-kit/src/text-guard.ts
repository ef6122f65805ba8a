// Text that Postgres cannot store is refused at the edge: a NUL, bytes that are not UTF-8, or a lone
// surrogate, anywhere in a request's path, query or body, is a 400 naming the field before any route
// runs. Every server built by createServer (each service and the gateway) carries these hooks, so no
// route has to remember it and none can reach the database with such text (a NUL there is a 500).
import { textProblem } from '@omc/contracts';
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors.js';

/**
 * Body fields only ever hashed, never stored as text: any character is theirs to hold, as it always
 * was, so an account whose password holds one can still sign in.
 */
const HASHED_FIELDS = new Set(['password', 'currentPassword', 'newPassword']);

export interface TextProblem {
  field: string;
  message: string;
}

const INVALID_UTF8 = 'must be UTF-8 text (it holds a byte sequence that is not)';

/** A percent-encoded part decoded, or null when its bytes are not UTF-8. A stray `%` stays as it is. */
function decodePart(part: string): string | null {
  try {
    return decodeURIComponent(part.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
  } catch {
    return null;
  }
}

function partProblem(raw: string, field: string): TextProblem | undefined {
  const decoded = decodePart(raw);
  if (decoded === null) return { field, message: `${field} ${INVALID_UTF8}` };
  const problem = textProblem(decoded);
  return problem ? { field, message: `${field} ${problem}` } : undefined;
}

/** What of a request target (path and query, percent-decoded) cannot be stored, or undefined. */
export function urlTextProblem(url: string | undefined): TextProblem | undefined {
  if (!url || (!url.includes('%') && !url.includes('\u0000'))) return undefined;
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  for (const segment of path.split('/')) {
    const problem = partProblem(segment, 'path');
    if (problem) return problem;
  }
  if (mark === -1) return undefined;
  for (const pair of url.slice(mark + 1).split('&')) {
    const equals = pair.indexOf('=');
    const rawKey = (equals === -1 ? pair : pair.slice(0, equals)).replace(/\+/g, ' ');
    const key = decodePart(rawKey);
    const keyProblem = partProblem(rawKey, 'query');
    if (keyProblem) return keyProblem;
    if (equals === -1) continue;
    const problem = partProblem(pair.slice(equals + 1).replace(/\+/g, ' '), key || 'query');
    if (problem) return problem;
  }
  return undefined;
}

/** The first string (or key) of a parsed body that cannot be stored, with its path, or undefined. */
export function bodyTextProblem(body: unknown): TextProblem | undefined {
  // A walk with a stack of its own: a deeply nested body cannot exhaust the call stack.
  const pending: [unknown, string][] = [[body, '']];
  while (pending.length > 0) {
    const [value, path] = pending.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return { field: path || 'body', message: `${path || 'body'} ${problem}` };
    } else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        const field = path ? `${path}.${key}` : key;
        const keyProblem = textProblem(key);
        if (keyProblem) return { field: path || 'body', message: `a key of ${path || 'body'} ${keyProblem}` };
        if (path === '' && HASHED_FIELDS.has(key)) continue;
        pending.push([inner, field]);
      }
    }
  }
  return undefined;
}

/** The answer to a body whose bytes are not UTF-8 (a parser reads it as bytes and asks this first). */
export function bodyBytesProblem(bytes: Buffer): Error | undefined {
  return isUtf8(bytes) ? undefined : badRequest(`body ${INVALID_UTF8}`, 'body');
}

/** The hooks: the request target before routing's work, the parsed body before validation. */
export function registerTextGuard(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const problem = urlTextProblem(request.raw.url);
    if (problem) throw badRequest(problem.message, problem.field);
  });
  app.addHook('preValidation', async (request) => {
    const problem = bodyTextProblem(request.body);
    if (problem) throw badRequest(problem.message, problem.field);
  });
}

/**
 * The JSON parser every server uses: the body's bytes must be UTF-8 (Node would otherwise put U+FFFD in
 * place of each bad byte, silently), then Fastify's own parser (prototype keys refused) reads it.
 */
export function registerUtf8Json(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const refused = bodyBytesProblem(body as Buffer);
    if (refused) return done(refused, undefined);
    parse(request, (body as Buffer).toString('utf8'), done);
  });
}
