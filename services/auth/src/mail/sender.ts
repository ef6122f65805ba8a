// Sends queued mail over SMTP with nodemailer. A mail the server refuses or cannot take (down, slow,
// timing out) stays queued and is tried again after a delay that doubles up to MAIL_RETRY_MAX_MS: mail
// is delayed, never lost. Requests never wait for this: they only write events. Each mail is rendered as
// it leaves, its link minted then (links.ts): committed before the mail goes, so a mail sent again after
// a crash carries a fresh link that works; a mail whose link may no longer be used is dropped.
import { createHash } from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import { EMAIL_PATTERN, type Language } from '@omc/contracts';
import { backoffDelay, RETRY_POLICIES } from '@omc/service-kit';
import type { Deps } from '../deps.js';
import { mintLink } from './links.js';
import {
  lockDueMail,
  markDropped,
  markFailed,
  markSent,
  purgeSentMail,
  unsentCount,
  type QueuedMail,
} from './mail-queue.repo.js';
import { renderMail, type MailKind, type MailParams, type RenderedMail } from './templates.js';

/**
 * The id a mail shows outside (its X-OMC-Mail-Id header, the log): a digest of its queue id, which may
 * name the request its link is minted for. A recipient or a log reader gets nothing to trade for a link.
 */
export function publicMailId(queueId: string): string {
  return createHash('sha256').update(queueId).digest('base64url').slice(0, 22);
}

export interface MailSender {
  /** Look at the queue now rather than at the next poll. */
  nudge(): void;
  /** Unsent mails (metrics, tests). */
  backlog(): Promise<number>;
  stop(): Promise<void>;
}

const BATCH = 10;

/** The wait before a failed mail's next try: the system's one backoff, its policy's bounds from config. */
export function retryDelay(attempts: number, baseMs: number, maxMs: number): number {
  return backoffDelay({ ...RETRY_POLICIES.mailResend, baseMs, capMs: Math.max(maxMs, baseMs) }, attempts);
}

/**
 * The mail as it leaves: rendered now, with its link minted now (outside the queue's transaction, so the
 * token's hash is committed before the mail goes); null when its link may no longer be used. A row queued
 * by older auth goes as it was rendered.
 */
export async function composeMail(deps: Deps, mail: QueuedMail, now: number): Promise<RenderedMail | null> {
  if (mail.params === null)
    return { subject: mail.subject ?? '', text: mail.text ?? '', html: mail.html ?? '' };
  const link = await mintLink(deps, mail.link, mail.recipient, now);
  if (link === null) return null;
  const params: MailParams = { ...(mail.params as MailParams), ...(link ? { link } : {}) };
  return renderMail(mail.kind as MailKind, (mail.language ?? 'es') as Language, params);
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
  const sent = deps.metrics.counter(
    'auth_mail_total',
    'Account mails by outcome (sent, retry, dropped: its link may no longer be used)',
    ['outcome'],
  );
  let stopped = false;
  let wake: (() => void) | undefined;

  const pass = async (): Promise<number> =>
    db.transaction().execute(async (trx) => {
      const due = await lockDueMail(trx, deps.clock(), BATCH);
      for (const mail of due) {
        try {
          // Only ever to one plain mailbox: an address kept before addresses were held to one spelling
          // may wear a display name a mailer would read as someone else's mailbox.
          if (!EMAIL_PATTERN.test(mail.recipient)) {
            await markDropped(trx, mail.id, deps.clock(), 'not sent: the address is not one plain mailbox');
            sent.inc({ outcome: 'dropped' });
            log.warn({ mailId: publicMailId(mail.id), kind: mail.kind }, 'mail dropped: not a plain address');
            continue;
          }
          const composed = await composeMail(deps, mail, deps.clock());
          if (!composed) {
            await markDropped(trx, mail.id, deps.clock(), 'not sent: its link may no longer be used');
            sent.inc({ outcome: 'dropped' });
            log.info(
              { mailId: publicMailId(mail.id), kind: mail.kind },
              'mail dropped: its link may no longer be used',
            );
            continue;
          }
          await transport.sendMail({
            from: config.MAIL_FROM,
            to: mail.recipient,
            subject: composed.subject,
            text: composed.text,
            html: composed.html,
            headers: { 'X-OMC-Mail-Id': publicMailId(mail.id) },
          });
          await markSent(trx, mail.id, deps.clock());
          sent.inc({ outcome: 'sent' });
        } catch (error) {
          const delay = retryDelay(mail.attempts, config.MAIL_RETRY_BASE_MS, config.MAIL_RETRY_MAX_MS);
          log.warn(
            { err: error, mailId: publicMailId(mail.id), attempts: mail.attempts + 1, retryInMs: delay },
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
