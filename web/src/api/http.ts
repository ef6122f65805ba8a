// The web app's one way to call the API: the typed client of packages/client (its operations are
// checked against the route catalogue, ROUTES), every answer parsed with its contracts schema, and one
// error, ApiClientError, carrying the server's message (docs/client-contract.md) or none, so the caller
// shows its translated fallback. An answer that refuses the session ends it here (session/refusals.ts).
import { ApiClientError, createClient, errorCode, operations } from '@omc/client';
import { reportRefusal } from '../session/refusals';

export { ApiClientError, errorCode, operations };

export const api = createClient({
  onSessionRefused: reportRefusal,
  onUnexpectedAnswer: (path, error) => console.error(`unexpected response from ${path}`, error),
});

/** The server's message when it sent one, else the translated fallback. */
export function errorText(error: unknown, fallback: string): string {
  return error instanceof ApiClientError && error.serverMessage ? error.serverMessage : fallback;
}
