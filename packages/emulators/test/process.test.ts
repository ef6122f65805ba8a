// The emulators as `npm start` runs them: a process that says at start-up that no money moves.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { NO_MONEY_HEADER } from '../src/index.js';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('emulators process', () => {
  it('starts on PORT, announces that no money moves, and stops on SIGTERM', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      let ready: Response | undefined;
      for (let i = 0; i < 300 && !ready?.ok; i++) {
        ready = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        if (!ready?.ok) await new Promise((r) => setTimeout(r, 100));
      }
      expect(ready?.status).toBe(200);
      expect(ready?.headers.get(NO_MONEY_HEADER)).toMatch(/no real money moves/);
      expect(output).toMatch(/no real money moves/);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid!, 'SIGTERM');
      await exited;
    }
  }, 60_000);

  it('refuses a bad PORT, naming it', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: 'eighty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(78);
    expect(errors).toMatch(/PORT/);
  }, 60_000);
});
