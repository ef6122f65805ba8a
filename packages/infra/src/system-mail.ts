// The system's mail server in development: the mail catcher (maildev), its output in logs/maildev.log.
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { startMailCatcher, type MailCatcher } from './mail-catcher.js';

export function launchSystemMail(
  options: { dir: string; env: NodeJS.ProcessEnv; logs: 'inherit' | 'files' },
  preferredPorts: { smtp: number; ui: number },
): Promise<MailCatcher> {
  return startMailCatcher({
    dir: options.dir,
    env: options.env,
    preferredPorts,
    logFile: createWriteStream(join(options.dir, 'logs', 'maildev.log'), { flags: 'a' }),
    ...(options.logs === 'inherit'
      ? { onOutput: (line: string) => process.stdout.write(`[maildev] ${line}\n`) }
      : {}),
  });
}

/**
 * The mail catcher unless it is turned off or SMTP_URL names a mail server: on SMTP_PORT and MAIL_UI_PORT
 * when given, else maildev's own (1025, 1080) for npm start when free, and free ones for tests.
 */
export async function startSystemMail(
  options: { dir: string; env: NodeJS.ProcessEnv; logs: 'inherit' | 'files' },
  given: { wanted?: boolean; ports: 'default' | 'free' },
): Promise<MailCatcher | undefined> {
  if (given.wanted === false || options.env.SMTP_URL) return undefined;
  return launchSystemMail(options, {
    smtp: Number(options.env.SMTP_PORT ?? (given.ports === 'default' ? 1025 : 0)),
    ui: Number(options.env.MAIL_UI_PORT ?? (given.ports === 'default' ? 1080 : 0)),
  });
}
