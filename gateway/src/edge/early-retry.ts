// The early-retry rule on the click path: a client told to come back later that does not wait, again
// and again, is refused (429) before anything else is done for its click: no admission turn, no
// Fastify, no Redis. Only a click that is well formed as far as can be seen here is judged (a bearer
// token shaped like ours, unexpired, a small JSON body or none): any other is let on to be told what is
// wrong with it. Who is caught and for how long is retry-penalty.ts; the refusal is held (tarpit).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJson, readSmallBody } from './click-body.js';
import { refuseBadJson, refuseEarlyRetry } from './click-refusals.js';
import { judgeable, tokenExpired } from './click-token.js';
import { clientAddress, trustFunction, type TrustProxy } from './client-address.js';
import { Tarpit } from './early-retry-tarpit.js';
import { addressKey, RetryPenalty, tokenKey } from './retry-penalty.js';

/** Early refusals held at once at most (a timer and an open response each); past it they go at once. */
const MAX_HELD = 20_000;

export interface EarlyRetryOptions {
  /** Clients remembered at most (CLICK_PENALTY_MAX_KEYS). */
  maxKeys: number;
  /** The longest wait an early retry can earn, in seconds. */
  maxPenaltySeconds: number;
  /** How long an early retry's refusal is held before it is sent, in ms (at most its wait). */
  delayMs: number;
  trustProxy: TrustProxy;
}

export class EarlyRetries {
  private readonly penalty: RetryPenalty;
  private readonly tarpit: Tarpit;
  private readonly trust: ReturnType<typeof trustFunction>;

  constructor(
    options: EarlyRetryOptions,
    private readonly onRefusal: () => void,
  ) {
    this.penalty = new RetryPenalty({
      maxKeys: options.maxKeys,
      maxPenaltyMs: options.maxPenaltySeconds * 1000,
    });
    this.tarpit = new Tarpit({ delayMs: options.delayMs, maxHeld: MAX_HELD });
    this.trust = trustFunction(options.trustProxy);
  }

  /** Clients remembered now. */
  get size(): number {
    return this.penalty.size;
  }

  /**
   * Judges a click: `refused` when this call answered it (an early retry, or a malformed body of one);
   * otherwise the client's key, if its answer should be read (`answered`), to go on with.
   */
  judge(req: IncomingMessage, res: ServerResponse): { refused: true } | { refused: false; token?: string } {
    if (!judgeable(req)) return { refused: false };
    const authorization = req.headers.authorization!;
    const token = tokenKey(authorization)!;
    if (!this.penalty.knows(token)) return { refused: false, token };
    const now = Date.now();
    const wait = this.penalty.early(addressKey(clientAddress(req, this.trust)), token, now);
    // A token past its expiry is told so (401) by the game, whatever its record.
    if (wait <= 0 || tokenExpired(authorization, now)) return { refused: false, token };
    if (Number(req.headers['content-length'] ?? 0) === 0) {
      this.refuse(res, wait);
      req.resume();
    } else {
      // The body is small (judgeable checked): read so a malformed one gets the 400 that names it.
      readSmallBody(req, (text) => (isJson(text) ? this.refuse(res, wait) : refuseBadJson(res)));
    }
    return { refused: true };
  }

  /** The click was shed for overload and told to wait `retryAfterMs`. */
  shed(token: string | undefined, retryAfterMs: number): void {
    if (token) this.penalty.refused(token, retryAfterMs, Date.now());
  }

  /**
   * What the game answered a judged click, read as the answer leaves (before the client can send its
   * next click, which must find it): a 200 clears the client's record once its Retry-After has run out;
   * the game's per-second click limits (429 with a Retry-After) count like an overload refusal, so a
   * client that does not wait for them is an early retrier too. A 503 from upstream does not: a crashed
   * or restarting game is nobody's fault, and its clients' retries are no early retries.
   */
  answered(token: string, status: number, retryAfterS: number): void {
    if (status === 200) this.penalty.accepted(token, Date.now());
    else if (status === 429 && retryAfterS > 0) this.penalty.refused(token, retryAfterS * 1000, Date.now());
  }

  close(): void {
    this.tarpit.close();
  }

  private refuse(res: ServerResponse, waitMs: number): void {
    this.onRefusal();
    this.tarpit.hold(res, waitMs, () => refuseEarlyRetry(res, waitMs));
  }
}
