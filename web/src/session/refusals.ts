// An answer that refuses the session, on any call (a click, a profile read, an admin or a money call, a
// token refresh), is reported here once, and the session ends locally: suspended by an operator (code
// ACCOUNT_SUSPENDED, the message carries their reason), or ended (a 401 to the token it sent: signed
// out elsewhere, a security change).
import { errorCode, type ApiClientError } from '@omc/client';

type Listener<T> = (value: T) => void;
const suspensionListeners = new Set<Listener<string>>();
const endListeners = new Set<Listener<string | undefined>>();

/** Called by the API client for every answer that refuses the session of `token`. */
export function reportRefusal(error: ApiClientError, token: string | undefined): void {
  if (isSuspension(error)) for (const listener of suspensionListeners) listener(error.serverMessage ?? '');
  else for (const listener of endListeners) listener(token);
}

function subscribe<T>(listeners: Set<Listener<T>>, listener: Listener<T>): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const onSuspension = (listener: Listener<string>) => subscribe(suspensionListeners, listener);

/** Told the token whose session the server refused. */
export const onSessionEnded = (listener: Listener<string | undefined>) => subscribe(endListeners, listener);

export function isSuspension(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === errorCode('ACCOUNT_SUSPENDED');
}
