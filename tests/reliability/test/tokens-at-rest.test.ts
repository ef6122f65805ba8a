// A compromised pod or a reader of the bus or of a database copy learns no mailed link: after a whole
// account journey (register, verify, reset, change email, undo), every message of every JetStream stream
// (read from its first message), and every row of every table of every service's database (auth's
// outbox, processed events, mail queue, reset tokens, email changes among them) is searched for every
// token the mail catcher delivered to the journey's addresses. None may be there: events carry a
// reference, the mailer mints the link when it sends, and only hashes are stored.
import { connect, type JetStreamManager } from 'nats';
import { afterAll, describe, expect, it } from 'vitest';
import { figures, invariant, reportFigures, suite } from '../src/context.js';
import { query } from '../src/db.js';
import { sleep } from '../src/http.js';
import { accountJourney, tokensMailedTo } from '../src/journey.js';

afterAll(reportFigures);

/** Every message of every stream, from its first, with where it was found. */
async function searchStreams(jsm: JetStreamManager, tokens: string[]): Promise<string[]> {
  const found: string[] = [];
  for await (const stream of jsm.streams.list()) {
    const { first_seq: first, last_seq: last } = stream.state;
    for (let seq = first; seq > 0 && seq <= last; seq++) {
      const message = await jsm.streams.getMessage(stream.config.name, { seq }).catch(() => undefined);
      if (!message) continue; // deleted
      const text = Buffer.from(message.data).toString('utf8');
      for (const token of tokens)
        if (text.includes(token)) found.push(`stream ${stream.config.name} #${seq} ${message.subject}`);
    }
  }
  return found;
}

/** Every row of every table of the service's database, searched by Postgres itself. */
async function searchDatabase(service: string, tokens: string[]): Promise<string[]> {
  const tables = await query<{ name: string }>(
    service,
    `select table_name as name from information_schema.tables
     where table_schema = current_schema() and table_type = 'BASE TABLE'`,
  );
  const found: string[] = [];
  for (const { name } of tables) {
    const hits = await query<{ token: string }>(
      service,
      `select token from unnest($1::text[]) as token
       where exists (select 1 from "${name.replaceAll('"', '""')}" t where strpos(row_to_json(t)::text, token) > 0)`,
      [tokens],
    );
    for (const hit of hits) found.push(`${service}.${name}: ${hit.token.slice(0, 12)}...`);
  }
  return found;
}

describe('tokens on the bus and at rest', () => {
  it('no mailed token of a whole account journey is in any stream or any table', async () => {
    const journey = await accountJourney('atrest');
    // Every link the catcher delivered to the journey's addresses, used or not.
    const tokens = [...new Set([...journey.mailedTokens, ...(await tokensMailedTo(journey.addresses))])];
    expect(tokens.length).toBeGreaterThanOrEqual(4);
    // The mail queue marks the last mails sent, the consumers their events processed.
    await sleep(1000);

    const nc = await connect({ servers: suite().natsUrl });
    const found: string[] = [];
    try {
      found.push(...(await searchStreams(await nc.jetstreamManager(), tokens)));
    } finally {
      await nc.close();
    }
    for (const service of Object.keys(suite().databaseUrls))
      found.push(...(await searchDatabase(service, tokens)));

    figures.tokensAtRest += found.length;
    figures.tokensAtRestSearched += tokens.length;
    invariant('no mailed token is on the bus or at rest after the journey', found.length === 0, found);
    expect(found).toEqual([]);
  });
});
