// Turns auth's own events into queued mail: one durable JetStream consumer, and per event id one set of
// mails, however often the event is delivered (the id is recorded in the same transaction as the mails).
import { SUBJECTS, type EventEnvelope, type Language, type Subject } from '@omc/contracts';
import { processOnce, startConsumer, type Consumer } from '@omc/service-kit';
import { STREAMS } from '@omc/contracts';
import type { Deps } from '../deps.js';
import { queueMail } from './queue.js';
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
  params?: MailParams;
}

/** The web app's page for a link, with its token. */
export function webLink(deps: Deps, path: string, token: string): string {
  const url = new URL(path, deps.config.PUBLIC_WEB_URL);
  url.searchParams.set('token', token);
  return url.toString();
}

/** Which mails an event asks for; none for events that are not about mail. */
export function mailsFor(deps: Deps, event: EventEnvelope): MailOrder[] {
  switch (event.subject) {
    case SUBJECTS.passwordResetRequested: {
      const data = (event as EventEnvelope<typeof SUBJECTS.passwordResetRequested>).data;
      return [
        {
          kind: 'passwordReset',
          to: data.email,
          language: data.language,
          params: {
            link: webLink(deps, '/reset-password', data.token),
            minutes: deps.config.PASSWORD_RESET_TTL_MINUTES,
          },
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
          params: {
            link: webLink(deps, '/verify-email', data.token),
            hours: deps.config.VERIFICATION_TTL_HOURS,
          },
        },
      ];
    }
    case SUBJECTS.emailChangeRequested: {
      const data = (event as EventEnvelope<typeof SUBJECTS.emailChangeRequested>).data;
      return [
        {
          kind: 'confirmEmailChange',
          to: data.newEmail,
          language: data.language,
          params: {
            link: webLink(deps, '/confirm-email', data.confirmToken),
            hours: deps.config.EMAIL_CHANGE_TTL_HOURS,
          },
        },
        {
          kind: 'emailChangeNotice',
          to: data.oldEmail,
          language: data.language,
          params: {
            link: webLink(deps, '/undo-email-change', data.undoToken),
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
    subjects: MAIL_SUBJECTS,
    log: deps.log,
    handle: async (event) => {
      const orders = mailsFor(deps, event);
      if (orders.length === 0) return;
      const fresh = await processOnce(deps.db, event, async (trx) => {
        for (const [i, order] of orders.entries()) {
          const mail = renderMail(order.kind, order.language, order.params);
          await queueMail(
            trx,
            { id: `${event.id}:${i}`, eventId: event.id, kind: order.kind, recipient: order.to, ...mail },
            deps.clock(),
          );
        }
      });
      if (fresh) onQueued();
    },
  });
}
