// An SMTP server for tests: accepts every mail (no TLS, no auth), parses it and keeps it, so a test
// reads what a user would find in the inbox. `down` makes it refuse connections like a server that is
// out, and `up` brings it back.
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SunkMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  headers: Map<string, unknown>;
  /** The first link into the web app in the text, e.g. http://localhost:8080/reset-password?token=... */
  link?: string;
}

export interface MailSink {
  url: string;
  port: number;
  mails: SunkMail[];
  /** Mails to this address, in arrival order. */
  to(address: string): SunkMail[];
  /** Waits until a mail to the address matches (or any mail does, without a predicate). */
  waitFor(address: string, predicate?: (mail: SunkMail) => boolean, timeoutMs?: number): Promise<SunkMail>;
  /** Connections refused from now on (421), as a mail server that is down. */
  down(): void;
  up(): void;
  /** Connections refused while down. */
  refused: number;
  close(): Promise<void>;
}

const linkIn = (text: string) => /https?:\/\/\S+\?token=[\w.~%-]+/.exec(text)?.[0];

function toList(parsed: ParsedMail): string[] {
  const to = parsed.to ? (Array.isArray(parsed.to) ? parsed.to : [parsed.to]) : [];
  return to.flatMap((a) => a.value.map((v) => (v.address ?? '').toLowerCase()));
}

export async function startMailSink(): Promise<MailSink> {
  let isDown = false;
  const sink: MailSink = {
    url: '',
    port: 0,
    mails: [],
    refused: 0,
    to: (address) => sink.mails.filter((m) => m.to.includes(address.toLowerCase())),
    async waitFor(address, predicate = () => true, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = sink.to(address).find(predicate);
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(
            `no mail to ${address} within ${timeoutMs} ms (${sink.mails.length} mails in the sink)`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    down: () => {
      isDown = true;
    },
    up: () => {
      isDown = false;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect(_session, callback) {
      if (isDown) {
        sink.refused += 1;
        const error = new Error('Service not available') as Error & { responseCode: number };
        error.responseCode = 421;
        return callback(error);
      }
      callback();
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const text = parsed.text ?? '';
          sink.mails.push({
            to: toList(parsed),
            from: parsed.from?.text ?? '',
            subject: parsed.subject ?? '',
            text,
            html: typeof parsed.html === 'string' ? parsed.html : '',
            headers: parsed.headers as Map<string, unknown>,
            link: linkIn(text),
          });
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  sink.port = typeof address === 'object' && address ? address.port : 0;
  sink.url = `smtp://127.0.0.1:${sink.port}`;
  return sink;
}
