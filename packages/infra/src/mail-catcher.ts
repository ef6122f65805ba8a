// The development mail catcher: maildev (npm), listening for SMTP and serving a web inbox with an HTTP
// API (GET /email). `npm start` sends every account mail here, so nothing reaches a real inbox.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { mkdirSync, type WriteStream } from 'node:fs';
import { freePort } from './native.js';

export interface MailCatcher {
  smtpPort: number;
  uiPort: number;
  /** What auth's SMTP_URL is set to. */
  smtpUrl: string;
  /** The web inbox; its API lists mails at `${uiUrl}/email`. */
  uiUrl: string;
  child: ChildProcess;
  pid: number;
}

/** A port free on the loopback interface, or undefined. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** maildev's own ports (1025, 1080) when asked for and free, otherwise free ones. */
async function choosePort(preferred: number | undefined): Promise<number> {
  if (preferred && (await portIsFree(preferred))) return preferred;
  return freePort();
}

export async function startMailCatcher(options: {
  dir: string;
  env: NodeJS.ProcessEnv;
  preferredPorts?: { smtp: number; ui: number };
  logFile: WriteStream;
  onOutput?: (line: string) => void;
  /** The address it listens on (127.0.0.1; 0.0.0.0 where containers send to the host). */
  ip?: string;
}): Promise<MailCatcher> {
  const smtpPort = await choosePort(options.preferredPorts?.smtp);
  const uiPort = await choosePort(options.preferredPorts?.ui);
  const require = createRequire(import.meta.url);
  const bin = join(dirname(require.resolve('maildev/package.json')), 'bin', 'maildev');
  const mailDir = join(options.dir, 'mail');
  mkdirSync(mailDir, { recursive: true });
  const child = spawn(
    process.execPath,
    [
      bin,
      '--smtp',
      String(smtpPort),
      '--web',
      String(uiPort),
      '--ip',
      options.ip ?? '127.0.0.1',
      '--mail-directory',
      mailDir,
    ],
    { env: options.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (chunk: Buffer) => {
      options.logFile.write(chunk);
      for (const line of chunk.toString().split('\n')) if (line.trim()) options.onOutput?.(line);
    });
  }
  child.once('exit', () => options.logFile.end());
  const uiUrl = `http://127.0.0.1:${uiPort}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`maildev exited with code ${child.exitCode} during start-up`);
    try {
      const response = await fetch(`${uiUrl}/email`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`maildev was not ready at ${uiUrl} within 30 s`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { smtpPort, uiPort, smtpUrl: `smtp://127.0.0.1:${smtpPort}`, uiUrl, child, pid: child.pid! };
}
