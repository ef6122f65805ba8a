// The cost of the fresh session check on money and account requests: auth's account hook (and so
// /internal/account, which payments asks on every money path) loads the account in one query that also
// says whether the token's session (refresh family) is still live and when it signed in. Without the
// check, the hook would load the row alone. Both queries run against a real PostgreSQL seeded like a
// busy auth database, alternating in rounds, and the figure is the ratio to that baseline measured in
// the same run. The click path asks nothing of auth and is not touched.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ensureDatabase } from '@omc/infra';
import pg from 'pg';

export interface SessionCheckOptions {
  /** Accounts seeded (each with 3 sessions of 6 rotated refresh tokens). */
  accounts: number;
  /** Queries of each kind, over all rounds. */
  queries: number;
  rounds: number;
}

export interface SessionCheckResult {
  accounts: number;
  sessions: number;
  refreshTokens: number;
  queriesEach: number;
  rounds: number;
  /** Per request: the account alone (no check), and the account with its session and version (now). */
  withoutCheckMicros: number;
  withCheckMicros: number;
  addedMicros: number;
  ratio: number;
}

const SESSIONS_PER_USER = 3;
/** Rotations per session: each leaves a row in refresh_tokens. */
const TOKENS_PER_SESSION = 6;

// The tables and indexes as auth's migrations 0001, 0003 and 0006 leave them (the columns the
// queries read).
const SCHEMA = `
drop table if exists refresh_tokens, sessions, users;
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

/** Without the check: the account alone. */
const WITHOUT_CHECK = 'select * from users where id = $1';
/** With it, as the hook runs it (services/auth/src/users/current-user.ts, as kysely writes it). */
const WITH_CHECK = `select users.*,
  exists (select 1 as one from refresh_tokens where refresh_tokens.family_id = $1
    and refresh_tokens.user_id = users.id and refresh_tokens.revoked_at is null) as session_live,
  (select sessions.created_at from sessions where sessions.family_id = $2) as signed_in_at
  from users where users.id = $3`;

type Pick = { userId: string; sessionId: string };

async function seed(client: pg.Client, accounts: number): Promise<Pick[]> {
  await client.query(SCHEMA);
  const picks: Pick[] = [];
  const batchSize = 500;
  for (let batch = 0; batch < Math.ceil(accounts / batchSize); batch++) {
    const users: string[] = [];
    const sessions: [string, string][] = [];
    const tokens: [string, string][] = [];
    for (let i = 0; i < batchSize && picks.length < accounts; i++) {
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

/** Mean µs per query of one kind over `n` queries. */
async function time(client: pg.Client, picks: Pick[], withCheck: boolean, n: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const pick = picks[(i * 7919) % picks.length]!;
    if (withCheck)
      await client.query({
        name: 'with-check',
        text: WITH_CHECK,
        values: [pick.sessionId, pick.sessionId, pick.userId],
      });
    else await client.query({ name: 'without-check', text: WITHOUT_CHECK, values: [pick.userId] });
  }
  return ((performance.now() - started) * 1000) / n;
}

/**
 * Seeds a database of its own (`bench_session_check`) on the PostgreSQL server at `serverUrl`, then
 * times both queries in alternating rounds on one connection.
 */
export async function measureSessionCheck(
  serverUrl: string,
  options: SessionCheckOptions,
  log: (line: string) => void,
): Promise<SessionCheckResult> {
  const url = await ensureDatabase(serverUrl, 'bench_session_check');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const picks = await seed(client, options.accounts);
    // Warm both statements and the cache.
    const warm = Math.min(2_000, options.queries / 5);
    await time(client, picks, false, warm);
    await time(client, picks, true, warm);
    const per = Math.max(1, Math.floor(options.queries / options.rounds));
    let without = 0;
    let withCheck = 0;
    for (let round = 0; round < options.rounds; round++) {
      without += await time(client, picks, false, per);
      withCheck += await time(client, picks, true, per);
    }
    without /= options.rounds;
    withCheck /= options.rounds;
    const result: SessionCheckResult = {
      accounts: picks.length,
      sessions: picks.length * SESSIONS_PER_USER,
      refreshTokens: picks.length * SESSIONS_PER_USER * TOKENS_PER_SESSION,
      queriesEach: per * options.rounds,
      rounds: options.rounds,
      withoutCheckMicros: without,
      withCheckMicros: withCheck,
      addedMicros: withCheck - without,
      ratio: withCheck / without,
    };
    log(
      `[bench] session check: ${result.accounts} accounts, ${result.sessions} sessions, ${result.refreshTokens} refresh tokens; ` +
        `${result.queriesEach} queries each in ${result.rounds} alternating rounds: account alone ${without.toFixed(1)} µs, ` +
        `with the session check ${withCheck.toFixed(1)} µs per request (+${result.addedMicros.toFixed(1)} µs, ratio ${result.ratio.toFixed(2)})`,
    );
    return result;
  } finally {
    await client.query('drop table if exists refresh_tokens, sessions, users').catch(() => undefined);
    await client.end();
  }
}
