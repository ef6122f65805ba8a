import { makeEvent, SUBJECTS, type EventEnvelope, type Subject } from '@omc/contracts';
import { enqueueEvent } from '@omc/service-kit';
import type { Transaction } from 'kysely';
import type { Database } from './db/schema.js';
import type { UserRow } from './users/users.repo.js';

/** Writes the event to the outbox inside the caller's transaction; the relay publishes it after commit. */
export function enqueue<S extends Subject>(
  trx: Transaction<Database>,
  event: EventEnvelope<S>,
): Promise<void> {
  return enqueueEvent(trx, event);
}

/** Announces a new account (its registration, or the bootstrap admin's creation) in the same transaction. */
export function enqueueRegistered(
  trx: Transaction<Database>,
  user: Pick<UserRow, 'id' | 'username' | 'email' | 'role' | 'preferred_language'>,
): Promise<void> {
  return enqueue(
    trx,
    makeEvent(SUBJECTS.userRegistered, {
      userId: user.id,
      username: user.username,
      email: user.email,
      role: user.role,
      preferredLanguage: user.preferred_language,
    }),
  );
}
