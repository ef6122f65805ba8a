// The account was suspended by an operator: any answer that says so (code ACCOUNT_SUSPENDED, from a
// click, a profile read or a token refresh) is reported here once, and the session ends locally.
import { ACCOUNT_SUSPENDED } from '@omc/contracts';

type Listener = (message: string) => void;
const listeners = new Set<Listener>();

/** Called by the API layer for every refused answer; only a suspension is passed on. */
export function reportRefusal(code: string | undefined, message: string | undefined): void {
  if (code !== ACCOUNT_SUSPENDED) return;
  for (const listener of listeners) listener(message ?? '');
}

export function onSuspension(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function isSuspension(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === ACCOUNT_SUSPENDED;
}
