// HTTP load generator process: autocannon with keep-alive connections, each connection carrying one
// user's token. Optionally records each accepted click's ordinal and acknowledgement time.
import autocannon from 'autocannon';
import { nowMs, serveCalls } from './workers.js';

export interface HttpLoadOptions {
  url: string;
  path: string;
  method: 'GET' | 'POST';
  connections: number;
  durationS: number;
  /** One per connection, round-robin; none sends no Authorization header. */
  tokens: string[];
  /** Requests per second over all connections; absent means as fast as the server answers. */
  overallRate?: number;
  /** Keep `globalClicks` of every 2xx answer with the time it arrived. */
  recordAcks?: boolean;
  /** Stop early once an answer says `won: true` (the round-end scenario). */
  stopOnWin?: boolean;
}

export interface HttpLoadResult {
  durationS: number;
  ok: number;
  non2xx: number;
  statusCounts: Record<string, number>;
  errors: number;
  timeouts: number;
  okPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  acks?: { ordinals: number[]; times: number[] };
  wins: { ordinal: number; at: number }[];
}

const COUNTER = /"globalClicks"\s*:\s*(\d+)/;
const WON = /"won"\s*:\s*true/;

async function run(options: HttpLoadOptions): Promise<HttpLoadResult> {
  const ordinals: number[] = [];
  const times: number[] = [];
  const wins: { ordinal: number; at: number }[] = [];
  let nextToken = 0;
  let instance: autocannon.Instance | undefined;

  const setupClient = (client: any) => {
    const token = options.tokens.length > 0 ? options.tokens[nextToken++ % options.tokens.length] : undefined;
    client.setHeaders(token ? { authorization: `Bearer ${token}` } : {});
  };

  const onResponse = (status: number, body: string) => {
    if (status < 200 || status >= 300) return;
    const at = nowMs();
    const match = COUNTER.exec(body);
    if (!match) return;
    const ordinal = Number(match[1]);
    if (options.recordAcks) {
      ordinals.push(ordinal);
      times.push(at);
    }
    if (WON.test(body)) {
      wins.push({ ordinal, at });
      if (options.stopOnWin) setTimeout(() => instance?.stop(), 200);
    }
  };

  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: options.url + options.path,
        method: options.method,
        connections: options.connections,
        duration: options.durationS,
        ...(options.overallRate ? { overallRate: options.overallRate } : {}),
        setupClient,
        ...(options.recordAcks || options.stopOnWin
          ? { requests: [{ method: options.method, path: options.path, onResponse }] }
          : {}),
        timeout: 10,
      } as autocannon.Options,
      (error, r) => (error ? reject(error) : resolve(r)),
    );
  });

  const statusCounts: Record<string, number> = {};
  for (const [code, stat] of Object.entries((result as any).statusCodeStats ?? {}))
    statusCounts[code] = Number((stat as { count: number }).count);
  const ok = result['2xx'];
  return {
    durationS: result.duration,
    ok,
    non2xx: result.non2xx,
    statusCounts,
    errors: result.errors,
    timeouts: result.timeouts,
    okPerSecond: ok / result.duration,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: result.latency.average,
    },
    ...(options.recordAcks ? { acks: { ordinals, times } } : {}),
    wins,
  };
}

serveCalls({ run });
