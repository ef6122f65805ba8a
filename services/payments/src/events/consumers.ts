// Durable JetStream consumers: auth's user events and game's round won events, each applied once per
// event id (processOnce) and acknowledged only after its transaction commits.
import { STREAMS, SUBJECTS, type EventEnvelope } from '@omc/contracts';
import { ensureStream, processOnce, startConsumer, type Consumer } from '@omc/service-kit';
import type { Deps } from '../deps.js';
import type { PaymentsMetrics } from '../metrics.js';
import { UsersService } from '../users/users.service.js';
import type { GameRecord } from '../wins/game-record.js';
import { applyRoundWon } from '../wins/wins.service.js';

export async function startConsumers(
  deps: Deps,
  metrics: PaymentsMetrics,
  game: GameRecord,
): Promise<Consumer[]> {
  const settings = { replicas: deps.config.NATS_STREAM_REPLICAS };
  for (const stream of [STREAMS.payments, STREAMS.auth, STREAMS.game])
    await ensureStream(deps.nats.jsm, stream, settings);
  const onResult = (subject: string, outcome: string) => metrics.eventsConsumed.inc({ subject, outcome });
  const users = startConsumer({
    nats: deps.nats,
    stream: STREAMS.auth.name,
    durable: 'payments-users',
    subjects: [
      SUBJECTS.userRegistered,
      SUBJECTS.userRoleChanged,
      SUBJECTS.userRenamed,
      SUBJECTS.userEmailChanged,
      SUBJECTS.userDeleted,
    ],
    log: deps.log,
    ackWaitMs: deps.config.EVENT_ACK_WAIT_MS,
    onResult,
    handle: async (event) => {
      await processOnce(deps.db, event, (trx) => UsersService.apply(trx, event));
    },
  });
  const wins = startConsumer({
    nats: deps.nats,
    stream: STREAMS.game.name,
    durable: 'payments-round-won',
    subjects: [SUBJECTS.roundWon],
    log: deps.log,
    ackWaitMs: deps.config.ROUND_WON_ACK_WAIT_MS,
    onResult,
    handle: async (event) => {
      const outcome = await applyRoundWon(
        deps.db,
        game,
        event as EventEnvelope<typeof SUBJECTS.roundWon>,
        deps.log,
      );
      metrics.roundWonEvents.inc({ outcome });
    },
  });
  return [users, wins];
}
