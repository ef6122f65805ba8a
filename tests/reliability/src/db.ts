// Read-only SQL against a service's own database, for what only the database can tell (the ledger
// balancing, outboxes drained, one winner per round). Never writes: the session is read-only.
import pg from 'pg';
import { suite } from './context.js';

export async function query<T = any>(service: string, text: string, values: unknown[] = []): Promise<T[]> {
  const url = suite().databaseUrls[service];
  if (!url) throw new Error(`no database for ${service}`);
  const client = new pg.Client({
    connectionString: url,
    options: '-c default_transaction_read_only=on',
    connectionTimeoutMillis: 5000,
  });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

export async function tableExists(service: string, table: string): Promise<boolean> {
  const rows = await query(
    service,
    `select 1 from information_schema.tables where table_schema = current_schema() and table_name = $1`,
    [table],
  );
  return rows.length > 0;
}
