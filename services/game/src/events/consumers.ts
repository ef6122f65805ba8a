// What the game learns from other services: users from auth (applied by players/players.service.ts),
// purchases from payments (applied by purchases/purchases.service.ts). Each handler is idempotent: Postgres changes run once per event id
// (processOnce), and the Redis side is re-applied from Postgres by version, so a redelivery after a crash
// between the two finishes the job and changes nothing else.
import { STREAMS, SUBJECTS, type EventEnvelope } from '@omc/contracts';
import { startConsumer, type Consumer, type Nats } from '@omc/service-kit';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { PlayersService } from '../players/players.service.js';
import type { PurchasesService } from '../purchases/purchases.service.js';

export function startGameConsumers(options: {
  nats: Nats;
  players: PlayersService;
  purchases: PurchasesService;
  config: Config;
  log: Logger;
  onResult: (subject: string, outcome: string) => void;
}): Consumer[] {
  const { nats, players, purchases, config, log } = options;

  const handleAuth = async (event: EventEnvelope) => {
    switch (event.subject) {
      case SUBJECTS.userRegistered:
        return players.register(event, (event as EventEnvelope<typeof SUBJECTS.userRegistered>).data);
      case SUBJECTS.userRoleChanged: {
        const data = (event as EventEnvelope<typeof SUBJECTS.userRoleChanged>).data;
        return players.change(event, data.userId, { role: data.role, roleVersion: data.roleVersion });
      }
      case SUBJECTS.userRenamed: {
        const data = (event as EventEnvelope<typeof SUBJECTS.userRenamed>).data;
        return players.change(event, data.userId, { username: data.username });
      }
      case SUBJECTS.userDeleted: {
        const data = (event as EventEnvelope<typeof SUBJECTS.userDeleted>).data;
        return players.change(event, data.userId, { deleted: true });
      }
      case SUBJECTS.userAccessChanged:
        // After every security event; a suspension's or a restore's is usually a no-op (auth told the game
        // directly before the admin's call answered).
        return players.accessChanged(event, (event as EventEnvelope<typeof SUBJECTS.userAccessChanged>).data);
      case SUBJECTS.emailVerified:
        return players.emailVerified((event as EventEnvelope<typeof SUBJECTS.emailVerified>).data.userId);
      default:
        // Other auth events (e-mail changes) are none of the game's business.
        return;
    }
  };

  const handlePayments = async (event: EventEnvelope) => {
    if (event.subject !== SUBJECTS.purchaseCompleted) return;
    await purchases.apply((event as EventEnvelope<typeof SUBJECTS.purchaseCompleted>).data);
  };

  return [
    startConsumer({
      nats,
      stream: STREAMS.auth.name,
      durable: 'game-auth',
      subjects: [
        SUBJECTS.userRegistered,
        SUBJECTS.userRoleChanged,
        SUBJECTS.userRenamed,
        SUBJECTS.userDeleted,
        SUBJECTS.emailVerified,
        SUBJECTS.userAccessChanged,
      ],
      log,
      ackWaitMs: config.EVENT_ACK_WAIT_MS,
      handle: handleAuth,
      onResult: options.onResult,
    }),
    startConsumer({
      nats,
      stream: STREAMS.payments.name,
      durable: 'game-payments',
      subjects: [SUBJECTS.purchaseCompleted],
      log,
      ackWaitMs: config.EVENT_ACK_WAIT_MS,
      handle: handlePayments,
      onResult: options.onResult,
    }),
  ];
}
