// Peeking at a click's bearer token without verifying it (the game verifies): enough to tell whose early
// retry a click is, and to let a click the game would refuse anyway (no token, expired) on to be told so.
import type { IncomingMessage } from 'node:http';

/** Largest click body the early-retry refusal reads to judge it; a larger one is let on to be told. */
export const MAX_JUDGED_BODY = 1024;
const JWT_SHAPE = /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/;

/** Whether the refusal may judge this click: a token of our shape, and no body or a small JSON one. */
export function judgeable(req: IncomingMessage): boolean {
  const authorization = req.headers.authorization;
  if (!authorization || !JWT_SHAPE.test(authorization)) return false;
  if (req.headers['transfer-encoding'] !== undefined) return false;
  const length = req.headers['content-length'];
  if (length !== undefined && !(/^\d{1,4}$/.test(length) && Number(length) <= MAX_JUDGED_BODY)) return false;
  const type = req.headers['content-type'];
  // No body and no type, or a small body said to be JSON (an empty one said to be JSON is a 400 behind).
  if (Number(length ?? 0) === 0) return type === undefined;
  if (!type || !/^application\/json\s*(;|$)/i.test(type)) return false;
  return true;
}

/** The token's own `exp` has passed (or its claims cannot be read): the game will answer 401. */
export function tokenExpired(authorization: string, now: number): boolean {
  try {
    const payload = authorization.slice(7).split('.')[1]!;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp === 'number' && claims.exp * 1000 <= now;
  } catch {
    return true;
  }
}
