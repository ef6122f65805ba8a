// Open-loop click generator process: clicks leave on a fixed schedule whatever the server does (one
// every 1/rate seconds), and each click's latency counts from the time it was due, not from when a free
// connection let it go: a server that stalls cannot hide its stall by slowing the generator down (no
// coordinated omission). Connections are pooled (keep-alive, one request per connection at a time,
// many connections, as many players are), through a client that costs the shared cores little
// (click-client.ts).
import { ClickClient } from './click-client.js';
import { Histogram, type HistogramData } from './stats.js';
import { nowMs, serveCalls } from './workers.js';

export interface OpenLoopOptions {
  url: string;
  tokens: string[];
  /** Clicks per second, sent on a fixed schedule. */
  rate: number;
  durationS: number;
  connections: number;
  /** A click unanswered after this long counts as failed (its outcome unknown). */
  timeoutMs: number;
}

export interface OpenLoopResult {
  rate: number;
  offered: number;
  durationS: number;
  /** From the first click's scheduled time to the last answer: the time the clicks really took. */
  elapsedS: number;
  accepted: number;
  refused: number;
  /** Answers other than 2xx or a refusal (4xx/5xx that are not 429/503). */
  otherStatus: Record<string, number>;
  /** No answer (timeout, connection error): the click may or may not have counted. */
  failed: number;
  refusalsWithRetryAfter: number;
  refusalsWithMessage: number;
  /** Scheduled time to answer, for accepted clicks and for refusals. */
  acceptedLatency: HistogramData;
  refusalLatency: HistogramData;
  /** Every accepted click's ordinal, the time it was due and the time its answer arrived. */
  acks: { ordinals: number[]; scheduled: number[]; answered: number[] };
  duplicateOrdinals: number;
  /** How late the generator sent clicks compared with their schedule (its own lag), p99 in ms. */
  sendLagP99Ms: number;
}

const COUNTER = /"globalClicks"\s*:\s*(\d+)/;
const MESSAGE = /"(message|error|msg)"\s*:\s*"[^"]+"/;

async function run(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const client = new ClickClient({
    origin: new URL(options.url).origin,
    path: '/api/game/click',
    connections: options.connections,
    timeoutMs: options.timeoutMs,
  });
  const acceptedLatency = new Histogram(1, 20_000);
  const refusalLatency = new Histogram(1, 20_000);
  const sendLag = new Histogram(0.5, 10_000);
  const ordinals: number[] = [];
  const scheduledOf: number[] = [];
  const answeredAt: number[] = [];
  const otherStatus: Record<string, number> = {};
  let refused = 0;
  let failed = 0;
  let withRetryAfter = 0;
  let withMessage = 0;
  const total = Math.round(options.rate * options.durationS);
  const interval = 1000 / options.rate;
  const start = nowMs() + 20;
  let sent = 0;
  let done = 0;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));

  const one = (index: number, scheduled: number) => {
    const token = options.tokens[index % options.tokens.length]!;
    client.click(token, (error, answer) => {
      if (error || !answer) failed += 1;
      else {
        const at = nowMs();
        const { status, body } = answer;
        if (status >= 200 && status < 300) {
          const match = COUNTER.exec(body);
          acceptedLatency.record(at - scheduled);
          if (match) {
            ordinals.push(Number(match[1]));
            scheduledOf.push(scheduled);
            answeredAt.push(at);
          }
        } else if (status === 503 || status === 429) {
          refused += 1;
          refusalLatency.record(at - scheduled);
          if (answer.retryAfter) withRetryAfter += 1;
          if (MESSAGE.test(body)) withMessage += 1;
        } else {
          otherStatus[status] = (otherStatus[status] ?? 0) + 1;
        }
      }
      done += 1;
      if (done === total) finish();
    });
  };

  // Sends every click that is due, then yields; a timer of 1 ms keeps the schedule within a millisecond
  // or two when the generator has the CPU (its own lag is reported).
  await new Promise<void>((resolve) => {
    const pump = () => {
      const now = nowMs();
      while (sent < total && start + sent * interval <= now) {
        const scheduled = start + sent * interval;
        sendLag.record(now - scheduled);
        one(sent, scheduled);
        sent += 1;
      }
      if (sent < total) setTimeout(pump, 1);
      else resolve();
    };
    setTimeout(pump, Math.max(0, start - nowMs()));
  });
  if (total > 0) await finished;
  const elapsedS = (nowMs() - start) / 1000;
  await client.close();

  const seen = new Set<number>();
  let duplicateOrdinals = 0;
  for (const o of ordinals) {
    if (seen.has(o)) duplicateOrdinals += 1;
    seen.add(o);
  }
  return {
    rate: options.rate,
    offered: total,
    durationS: options.durationS,
    elapsedS,
    accepted: acceptedLatency.count,
    refused,
    otherStatus,
    failed,
    refusalsWithRetryAfter: withRetryAfter,
    refusalsWithMessage: withMessage,
    acceptedLatency: acceptedLatency.toJSON(),
    refusalLatency: refusalLatency.toJSON(),
    acks: { ordinals, scheduled: scheduledOf, answered: answeredAt },
    duplicateOrdinals,
    sendLagP99Ms: sendLag.percentile(99) ?? 0,
  };
}

serveCalls({ run });
