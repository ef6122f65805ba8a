// Turns auth's own events into queued mail: one durable JetStream consumer, and per event id one set of
// mails, however often the event is delivered (the id is recorded in the same transaction as the mails).
// A queued mail holds what to render and which link to mint (links.ts), never a token: the sender renders
// it and mints its link when it sends.
import { SUBJECTS, type EventEnvelope, type Language, type Subject } from '@omc/contracts';
import { processOnce, startConsumer, type Consumer } from '@omc/service-kit';
import { STREAMS } from '@omc/contracts';
import type { Deps } from '../deps.js';
import { queueMail } from './mail-queue.repo.js';
import type { LinkOrder } from './links.js';

/** Where a link's URL is built (kept here too for callers that imported it from the consumer). */
export { webLink } from './links.js';
import { renderMail, type MailKind, type MailParams } from './templates.js';

export const MAIL_SUBJECTS: Subject[] = [
  SUBJECTS.passwordResetRequested,
  SUBJECTS.passwordReset,
  SUBJECTS.verificationRequested,
  SUBJECTS.emailChangeRequested,
  SUBJECTS.emailChangeUndone,
];

interface MailOrder {
  kind: MailKind;
  to: string;
  language: Language;
  /** Interpolated into the template; never a link (the sender mints it from `link`). */
  params?: Omit<MailParams, 'link'>;
  link?: LinkOrder;
}

/**
 * Events older auth published carried the link's token and no request id. The contract drops the token
 * unread; their mail is not sent (a reset link lives minutes; the owner asks again), and this says so.
 */
function olderEvent(deps: Deps, event: EventEnvelope): MailOrder[] {
  deps.log.warn(
    { eventId: event.id, subject: event.subject },
    'event from older auth names no request: its token was dropped and no mail is sent',
  );
  return [];
}

/** Which mails an event asks for; none for events that are not about mail. */
export function mailsFor(deps: Deps, event: EventEnvelope): MailOrder[] {
  switch (event.subject) {
    case SUBJECTS.passwordResetRequested: {
      const data = (event as EventEnvelope<typeof SUBJECTS.passwordResetRequested>).data;
      if (!data.requestId) return olderEvent(deps, event);
      return [
        {
          kind: 'passwordReset',
          to: data.email,
          language: data.language,
          params: { minutes: deps.config.PASSWORD_RESET_TTL_MINUTES },
          link: { kind: 'passwordReset', ref: data.requestId },
        },
      ];
    }
    case SUBJECTS.passwordReset: {
      const data = (event as EventEnvelope<typeof SUBJECTS.passwordReset>).data;
      return [{ kind: 'passwordChanged', to: data.email, language: data.language }];
    }
    case SUBJECTS.verificationRequested: {
      const data = (event as EventEnvelope<typeof SUBJECTS.verificationRequested>).data;
      return [
        {
          kind: 'verifyEmail',
          to: data.email,
          language: data.language,
          params: { hours: deps.config.VERIFICATION_TTL_HOURS },
          // Events of older auth carried a signed token too: dropped by the contract, signed afresh.
          link: { kind: 'verifyEmail', ref: data.userId },
        },
      ];
    }
    case SUBJECTS.emailChangeRequested: {
      const data = (event as EventEnvelope<typeof SUBJECTS.emailChangeRequested>).data;
      if (!data.requestId) return olderEvent(deps, event);
      return [
        {
          kind: 'confirmEmailChange',
          to: data.newEmail,
          language: data.language,
          params: { hours: deps.config.EMAIL_CHANGE_TTL_HOURS },
          link: { kind: 'confirmEmailChange', ref: data.requestId },
        },
        {
          kind: 'emailChangeNotice',
          to: data.oldEmail,
          language: data.language,
          link: { kind: 'undoEmailChange', ref: data.requestId },
          params: {
            address: data.newEmail,
            days: deps.config.EMAIL_CHANGE_UNDO_DAYS,
            hours: deps.config.EMAIL_CHANGE_UNDO_AFTER_CONFIRM_HOURS,
          },
        },
      ];
    }
    case SUBJECTS.emailChangeUndone: {
      const data = (event as EventEnvelope<typeof SUBJECTS.emailChangeUndone>).data;
      return [
        {
          kind: 'emailChangeUndone',
          to: data.undoneEmail,
          language: data.language,
          params: { address: data.restoredEmail },
        },
      ];
    }
    default:
      return [];
  }
}

export function startMailConsumer(deps: Deps, onQueued: () => void): Consumer {
  return startConsumer({
    nats: deps.nats,
    stream: STREAMS.auth.name,
    durable: 'auth-mail',
    ackWaitMs: deps.config.EVENT_ACK_WAIT_MS,
    subjects: MAIL_SUBJECTS,
    log: deps.log,
    handle: async (event) => {
      const orders = mailsFor(deps, event);
      if (orders.length === 0) return;
      const fresh = await processOnce(deps.db, event, async (trx) => {
        for (const [i, order] of orders.entries()) {
          await queueMail(
            trx,
            {
              id: `${event.id}:${i}`,
              eventId: event.id,
              kind: order.kind,
              recipient: order.to,
              language: order.language,
              // The subject holds no secret; the body is rendered at send, with the link minted then.
              subject: renderMail(order.kind, order.language, order.params).subject,
              params: order.params ?? {},
              link: order.link ?? null,
            },
            deps.clock(),
          );
        }
      });
      if (fresh) onQueued();
    },
  });
}
