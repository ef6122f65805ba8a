import type { EventEnvelope, Subject } from '@omc/contracts';
import { enqueueEvent } from '@omc/service-kit';
import type { Transaction } from 'kysely';
import type { Database } from './db/schema.js';

/** Writes the event to the outbox inside the caller's transaction; the relay publishes it after commit. */
export function enqueue<S extends Subject>(
  trx: Transaction<Database>,
  event: EventEnvelope<S>,
): Promise<void> {
  return enqueueEvent(trx, event);
}
