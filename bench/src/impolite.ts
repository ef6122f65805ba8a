// What both refusal measurements (refusals.ts, a stand-in game; scenarios/refusals.ts, the whole
// system) share: a click as a page sends it, and the connections that resend the moment they are
// answered, whatever they were told.
import { Client, type Pool } from 'undici';

export interface ClickAnswer {
  status: number;
  /** The Retry-After the answer gave, in seconds (1 when it gave none). */
  retryAfter: number;
}

export async function sendClick(dispatcher: Pool | Client, token: string): Promise<ClickAnswer> {
  const r = await dispatcher.request({
    path: '/api/game/click',
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  await r.body.dump();
  return { status: r.statusCode, retryAfter: Number(r.headers['retry-after'] ?? 1) };
}

export interface ImpoliteCounts {
  impoliteOk: number;
  impolite429: number;
  impolite503: number;
}

/**
 * `connections` closed-loop clients, the i-th clicking with `tokenOf(i)`, each resending the moment it is
 * answered until `until` (ms since the epoch); their answers are counted into `counts`. Resolves once
 * every one has stopped and closed its connection.
 */
export async function runImpolite(
  url: string,
  connections: number,
  tokenOf: (i: number) => string,
  until: number,
  counts: ImpoliteCounts,
): Promise<void> {
  const clients: Client[] = [];
  await Promise.all(
    Array.from({ length: connections }, async (_, i) => {
      const client = new Client(url);
      clients.push(client);
      while (Date.now() < until) {
        try {
          const a = await sendClick(client, tokenOf(i));
          if (a.status === 200) counts.impoliteOk += 1;
          else if (a.status === 429) counts.impolite429 += 1;
          else counts.impolite503 += 1;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
    }),
  );
  for (const client of clients) await client.close();
}
