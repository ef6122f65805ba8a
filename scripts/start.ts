// `npm start`: the whole system on this machine, the gateway serving the built web app at
// http://localhost:8080. Ctrl-C stops everything it started, servers included.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startSystem } from '@omc/infra';

const root = process.cwd();

if (existsSync(join(root, 'web', 'package.json'))) {
  console.log('[start] building the web app');
  const build = spawnSync('pnpm', ['--filter', '@omc/web', 'run', 'build'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const system = await startSystem({
  root,
  dir: join(root, '.data', 'dev'),
  persistent: true,
  ports: 'default',
  logs: 'inherit',
  redisAppendOnly: true,
});

console.log(`
One Million Clicks is running: ${system.gatewayUrl.replace('127.0.0.1', 'localhost') || '(no gateway yet)'}
  admin: ${system.admin.username} / ${system.admin.email} (password from BOOTSTRAP_ADMIN_PASSWORD, default "${process.env.BOOTSTRAP_ADMIN_PASSWORD ? '***' : system.admin.password}")
  payments go to the local emulators: no money moves.
Press Ctrl-C to stop everything.
`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.log('\n[start] stopping');
  await system.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
for (const p of system.processes) {
  p.child.on('exit', (code, signal) => {
    if (!stopping) console.error(`[start] ${p.name} exited (${code ?? signal}); the rest keeps running`);
  });
}
