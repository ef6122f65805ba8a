// The fresh session check's cost on its own, against a PostgreSQL started for it (`npm run bench` runs
// the same measure as its scenario "session-check", on the bench system's PostgreSQL):
//
//   pnpm --filter @omc/bench session-check        (about a minute; BENCH_SESSION_QUERIES to change)
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startPostgres } from '@omc/infra';
import { measureSessionCheck } from './scenarios/session-check.js';

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'omc-bench-session-'));
  // The server may run as the postgres user (when this runs as root): it must reach its directory.
  chmodSync(dir, 0o755);
  const server = await startPostgres(join(dir, 'pg'), { port: await freePort() });
  try {
    const r = await measureSessionCheck(
      server.url,
      { accounts: 5_000, queries: Number(process.env.BENCH_SESSION_QUERIES ?? 20_000), rounds: 10 },
      () => undefined,
    );
    console.log(
      [
        `session check: ${r.accounts} accounts, ${r.sessions} sessions, ${r.refreshTokens} refresh tokens; ${r.queriesEach} queries each, ${r.rounds} alternating rounds`,
        `  account alone (no check)          ${r.withoutCheckMicros.toFixed(1)} µs per request`,
        `  account + session + version (now) ${r.withCheckMicros.toFixed(1)} µs per request`,
        `  cost of the fresh check            +${r.addedMicros.toFixed(1)} µs (ratio ${r.ratio.toFixed(2)})`,
      ].join('\n'),
    );
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
