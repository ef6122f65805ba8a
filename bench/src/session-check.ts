// The cost of the fresh session check on money and account requests: auth's account hook (and so
// /internal/account, which payments asks on every money path) loads the account in one query that also
// says whether the token's session (refresh family) is still live and when it signed in. Before, the hook
// loaded the row alone. Both queries run against a real PostgreSQL seeded like a busy auth database,
// alternating in rounds, and the figure is the ratio to that baseline measured in the same run.
// The click path asks nothing of auth and is not touched.
//
//   pnpm --filter @omc/bench session-check        (about a minute; BENCH_SESSION_QUERIES to change)
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureDatabase, freePort, startPostgres } from '@omc/infra';
import pg from 'pg';

const USERS = 5_000;
const SESSIONS_PER_USER = 3;
/** Rotations per session: each leaves a row in refresh_tokens. */
const TOKENS_PER_SESSION = 6;
const QUERIES = Number(process.env.BENCH_SESSION_QUERIES ?? 20_000);
const ROUNDS = 10;

// The tables and indexes as auth's migrations 0001, 0003 and 0006 leave them (the columns the
// queries read).
const SCHEMA = `
create table users (id uuid primary key, username text not null, email text not null,
  password_hash text not null, role text not null default 'standard', preferred_language text not null default 'es',
  email_verified_at timestamptz, email_canonical text not null, security_version integer not null default 0,
  created_at timestamptz not null default now(), updated_at timestamptz not null default now());
create table refresh_tokens (id uuid primary key, user_id uuid not null references users(id) on delete cascade,
  family_id uuid not null, token_hash text not null unique, created_at timestamptz not null default now(),
  expires_at timestamptz not null, rotated_at timestamptz, revoked_at timestamptz);
create index refresh_tokens_family on refresh_tokens (family_id);
create index refresh_tokens_user on refresh_tokens (user_id);
create table sessions (family_id uuid primary key, user_id uuid not null references users(id) on delete cascade,
  user_agent text, ip text, created_at timestamptz not null default now(), last_used_at timestamptz not null default now());
create index sessions_user on sessions (user_id);
`;

/** What the hook ran before: the account alone. */
const BASELINE = 'select * from users where id = $1';
/** What it runs now (services/auth/src/users/current-user.ts, as kysely writes it). */
const FRESH = `select users.*,
  exists (select 1 as one from refresh_tokens where refresh_tokens.family_id = $1
    and refresh_tokens.user_id = users.id and refresh_tokens.revoked_at is null) as session_live,
  (select sessions.created_at from sessions where sessions.family_id = $2) as signed_in_at
  from users where users.id = $3`;

async function seed(client: pg.Client): Promise<{ userId: string; sessionId: string }[]> {
  await client.query(SCHEMA);
  const picks: { userId: string; sessionId: string }[] = [];
  for (let batch = 0; batch < USERS / 500; batch++) {
    const users: string[] = [];
    const sessions: [string, string][] = [];
    const tokens: [string, string][] = [];
    for (let i = 0; i < 500; i++) {
      const id = randomUUID();
      users.push(id);
      for (let s = 0; s < SESSIONS_PER_USER; s++) {
        const family = randomUUID();
        sessions.push([family, id]);
        for (let t = 0; t < TOKENS_PER_SESSION; t++) tokens.push([family, id]);
      }
      picks.push({ userId: id, sessionId: sessions.at(-1)![0] });
    }
    await client.query(
      `insert into users (id, username, email, email_canonical, password_hash)
       select u, 'u_' || u, u || '@example.com', u || '@example.com', 'x' from unnest($1::uuid[]) as u`,
      [users],
    );
    await client.query(
      `insert into sessions (family_id, user_id) select * from unnest($1::uuid[], $2::uuid[])`,
      [sessions.map((s) => s[0]), sessions.map((s) => s[1])],
    );
    await client.query(
      `insert into refresh_tokens (id, family_id, user_id, token_hash, expires_at, rotated_at)
       select gen_random_uuid(), f, u, md5(random()::text || f::text), now() + interval '7 days', now()
       from unnest($1::uuid[], $2::uuid[]) as t(f, u)`,
      [tokens.map((t) => t[0]), tokens.map((t) => t[1])],
    );
  }
  await client.query('analyze');
  return picks;
}

async function time(
  client: pg.Client,
  picks: { userId: string; sessionId: string }[],
  fresh: boolean,
  n: number,
): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const pick = picks[(i * 7919) % picks.length]!;
    if (fresh)
      await client.query({
        name: 'fresh',
        text: FRESH,
        values: [pick.sessionId, pick.sessionId, pick.userId],
      });
    else await client.query({ name: 'baseline', text: BASELINE, values: [pick.userId] });
  }
  return ((performance.now() - started) * 1000) / n;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'omc-bench-session-'));
  // The server may run as the postgres user (when this runs as root): it must reach its directory.
  chmodSync(dir, 0o755);
  const server = await startPostgres(join(dir, 'pg'), { port: await freePort() });
  try {
    const url = await ensureDatabase(server.url, 'bench_session');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const picks = await seed(client);
      // Warm both statements and the cache.
      await time(client, picks, false, 2_000);
      await time(client, picks, true, 2_000);
      const per = Math.floor(QUERIES / ROUNDS);
      let baseline = 0;
      let fresh = 0;
      for (let round = 0; round < ROUNDS; round++) {
        baseline += await time(client, picks, false, per);
        fresh += await time(client, picks, true, per);
      }
      baseline /= ROUNDS;
      fresh /= ROUNDS;
      console.log(
        [
          `session check: ${USERS} accounts, ${USERS * SESSIONS_PER_USER} sessions, ${USERS * SESSIONS_PER_USER * TOKENS_PER_SESSION} refresh tokens; ${per * ROUNDS} queries each, ${ROUNDS} alternating rounds`,
          `  account alone (before)            ${baseline.toFixed(1)} µs per request`,
          `  account + session + version (now) ${fresh.toFixed(1)} µs per request`,
          `  cost of the fresh check            +${(fresh - baseline).toFixed(1)} µs (ratio ${(fresh / baseline).toFixed(2)})`,
        ].join('\n'),
      );
    } finally {
      await client.end();
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
