// Notifications: account mail, as a module of auth fed by auth's own outbox events over NATS
// (docs/decisions.md says why not a service of its own).
import type { Deps } from '../deps.js';
import { startMailConsumer } from './consumer.js';
import { startMailSender, type MailSender } from './sender.js';

export interface Mail {
  sender: MailSender;
  stop(): Promise<void>;
}

export function startMail(deps: Deps, options: { intervalMs?: number } = {}): Mail {
  const sender = startMailSender(deps, options);
  const consumer = startMailConsumer(deps, () => sender.nudge());
  deps.metrics.gauge('auth_mail_backlog', 'Account mails queued but not yet sent', [], async function () {
    this.set(await sender.backlog().catch(() => 0));
  });
  return {
    sender,
    async stop() {
      await consumer.stop();
      await sender.stop();
    },
  };
}
