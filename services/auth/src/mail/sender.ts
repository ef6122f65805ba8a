// Sends queued mail over SMTP with nodemailer. A mail the server refuses or cannot take (down, slow,
// timing out) stays queued and is tried again after a delay that doubles up to MAIL_RETRY_MAX_MS: mail
// is delayed, never lost. Requests never wait for this: they only write events.
import nodemailer, { type Transporter } from 'nodemailer';
import type { Deps } from '../deps.js';
import { lockDueMail, markFailed, markSent, purgeSentMail, unsentCount } from './queue.js';

export interface MailSender {
  /** Look at the queue now rather than at the next poll. */
  nudge(): void;
  /** Unsent mails (metrics, tests). */
  backlog(): Promise<number>;
  stop(): Promise<void>;
}

const BATCH = 10;

export function retryDelay(attempts: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(attempts, 30));
}

export function createTransport(deps: Deps): Transporter {
  const { config } = deps;
  const url = new URL(config.SMTP_URL);
  return nodemailer.createTransport({
    host: url.hostname,
    port: Number(url.port) || (url.protocol === 'smtps:' ? 465 : 587),
    secure: url.protocol === 'smtps:',
    ...(url.username
      ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }
      : {}),
    connectionTimeout: config.SMTP_TIMEOUT_MS,
    greetingTimeout: config.SMTP_TIMEOUT_MS,
    socketTimeout: config.SMTP_TIMEOUT_MS,
  });
}

export function startMailSender(deps: Deps, options: { intervalMs?: number } = {}): MailSender {
  const { config, db, log } = deps;
  const interval = options.intervalMs ?? 1000;
  const transport = createTransport(deps);
  const sent = deps.metrics.counter('auth_mail_total', 'Account mails by outcome (sent, retry)', ['outcome']);
  let stopped = false;
  let wake: (() => void) | undefined;

  const pass = async (): Promise<number> =>
    db.transaction().execute(async (trx) => {
      const due = await lockDueMail(trx, deps.clock(), BATCH);
      for (const mail of due) {
        try {
          await transport.sendMail({
            from: config.MAIL_FROM,
            to: mail.recipient,
            subject: mail.subject,
            text: mail.text,
            html: mail.html,
            headers: { 'X-OMC-Mail-Id': mail.id },
          });
          await markSent(trx, mail.id, deps.clock());
          sent.inc({ outcome: 'sent' });
        } catch (error) {
          const delay = retryDelay(mail.attempts, config.MAIL_RETRY_BASE_MS, config.MAIL_RETRY_MAX_MS);
          log.warn(
            { err: error, mailId: mail.id, attempts: mail.attempts + 1, retryInMs: delay },
            'mail not sent; will retry',
          );
          await markFailed(trx, mail.id, deps.clock() + delay, (error as Error).message ?? String(error));
          sent.inc({ outcome: 'retry' });
        }
      }
      return due.length;
    });

  let lastPurge = 0;
  const loop = async () => {
    while (!stopped) {
      let count = 0;
      try {
        count = await pass();
        if (deps.clock() - lastPurge > 3600_000) {
          lastPurge = deps.clock();
          await purgeSentMail(db, lastPurge, deps.config.MAIL_RETENTION_HOURS * 3_600_000);
        }
      } catch (error) {
        if (!stopped) log.warn({ err: error }, 'mail queue pass failed');
      }
      if (count === BATCH || stopped) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, interval);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  };
  const running = loop();
  return {
    nudge: () => wake?.(),
    backlog: () => unsentCount(db),
    async stop() {
      stopped = true;
      wake?.();
      await running;
      transport.close();
    },
  };
}
