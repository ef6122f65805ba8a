// What the game learns from other services: users from auth, purchases from payments. Each handler is
// idempotent: Postgres changes run once per event id (processOnce), and the Redis side is re-applied from
// Postgres by version, so a redelivery after a crash between the two finishes the job and changes nothing else.
import { STREAMS, SUBJECTS, type EventEnvelope } from '@omc/contracts';
import { processOnce, startConsumer, type Consumer, type Nats } from '@omc/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import type { GameEngine } from '../engine/game-engine.js';
import { applyAccess, findUsers, insertUser, recordSignupGrant, updateUser } from '../db/players.repo.js';

export function startGameConsumers(options: {
  db: Kysely<Database>;
  nats: Nats;
  engine: GameEngine;
  config: Config;
  log: Logger;
  onResult: (subject: string, outcome: string) => void;
}): Consumer[] {
  const { db, nats, engine, config, log } = options;

  const handleAuth = async (event: EventEnvelope) => {
    switch (event.subject) {
      case SUBJECTS.userRegistered: {
        const data = (event as EventEnvelope<typeof SUBJECTS.userRegistered>).data;
        await processOnce(db, event, async (trx) => {
          // With SIGNUP_FREE_CLICKS_AFTER_VERIFICATION the clicks wait for the verified email.
          const now = !config.SIGNUP_FREE_CLICKS_AFTER_VERIFICATION;
          await insertUser(trx, {
            id: data.userId,
            username: data.username,
            role: data.role,
            grantedClicks: now ? config.SIGNUP_FREE_CLICKS : 0,
            signupGranted: now,
          });
        });
        await engine.ensureUsers([data.userId], true);
        return;
      }
      case SUBJECTS.userRoleChanged: {
        const data = (event as EventEnvelope<typeof SUBJECTS.userRoleChanged>).data;
        await processOnce(db, event, (trx) =>
          updateUser(
            trx,
            data.userId,
            { role: data.role, roleVersion: data.roleVersion },
            new Date(event.occurredAt),
          ),
        );
        await engine.syncUser(data.userId);
        return;
      }
      case SUBJECTS.userRenamed: {
        const data = (event as EventEnvelope<typeof SUBJECTS.userRenamed>).data;
        await processOnce(db, event, (trx) =>
          updateUser(trx, data.userId, { username: data.username }, new Date(event.occurredAt)),
        );
        await engine.syncUser(data.userId);
        return;
      }
      case SUBJECTS.userDeleted: {
        const data = (event as EventEnvelope<typeof SUBJECTS.userDeleted>).data;
        await processOnce(db, event, (trx) =>
          updateUser(trx, data.userId, { deleted: true }, new Date(event.occurredAt)),
        );
        await engine.syncUser(data.userId);
        return;
      }
      case SUBJECTS.userAccessChanged: {
        // After every security event; a suspension's or a restore's is usually a no-op (auth told the game
        // directly before the admin's call answered).
        const data = (event as EventEnvelope<typeof SUBJECTS.userAccessChanged>).data;
        await processOnce(db, event, async (trx) => {
          if (!(await applyAccess(trx, data.userId, data, new Date())))
            throw new Error(`user ${data.userId} is not known yet`);
        });
        await engine.syncUser(data.userId);
        return;
      }
      case SUBJECTS.emailVerified: {
        // Sign-up clicks still to come are granted, once: Redis' record and then Postgres keep the mark, so
        // a redelivery or a second verification (after an email change) grants nothing.
        const data = (event as EventEnvelope<typeof SUBJECTS.emailVerified>).data;
        const user = (await findUsers(db, [data.userId])).get(data.userId);
        if (!user) throw new Error(`user ${data.userId} is not known yet`);
        if (user.signupGranted || user.deleted) return;
        await engine.grantSignupClicks(data.userId, config.SIGNUP_FREE_CLICKS);
        // Recorded before the event is acknowledged: the journal's copy may not outlive Redis.
        await recordSignupGrant(db, data.userId, config.SIGNUP_FREE_CLICKS);
        return;
      }
      default:
        // Other auth events (e-mail changes) are none of the game's business.
        return;
    }
  };

  const handlePayments = async (event: EventEnvelope) => {
    if (event.subject !== SUBJECTS.purchaseCompleted) return;
    await engine.applyPurchase((event as EventEnvelope<typeof SUBJECTS.purchaseCompleted>).data);
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
