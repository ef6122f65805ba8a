// Sniffing a small click body on the raw request, so a refused client's malformed click still gets the
// 400 that names its problem, as the game would answer.
import type { IncomingMessage } from 'node:http';

export function isJson(text: string): boolean {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Reads the whole body (the caller has checked it is small) and hands it over as text. */
export function readSmallBody(req: IncomingMessage, done: (text: string) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.once('end', () => done(Buffer.concat(chunks).toString('utf8')));
  req.once('error', () => undefined);
}
