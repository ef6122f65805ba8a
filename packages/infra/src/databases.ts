// Database administration for start-up and tests: one database per service, and cheap copies of a
// migrated template for test isolation.
import pg from 'pg';

export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unsafe database name: ${name}`);
  return `"${name}"`;
}

async function withAdmin<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function ensureDatabase(serverUrl: string, name: string): Promise<string> {
  await withAdmin(serverUrl, async (client) => {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`create database ${quoteIdent(name)}`);
  });
  return withDatabase(serverUrl, name);
}

export async function recreateDatabase(serverUrl: string, name: string, template?: string): Promise<string> {
  await withAdmin(serverUrl, async (client) => {
    await client.query(`drop database if exists ${quoteIdent(name)} with (force)`);
    await client.query(
      `create database ${quoteIdent(name)}${template ? ` template ${quoteIdent(template)}` : ''}`,
    );
  });
  return withDatabase(serverUrl, name);
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await withAdmin(serverUrl, (client) =>
    client.query(`drop database if exists ${quoteIdent(name)} with (force)`),
  );
}
