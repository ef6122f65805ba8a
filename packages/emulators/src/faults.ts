// Test controls: faults queued per target and consumed one request at a time, so a test can say
// "the next three payout calls answer 503" or "the next sale is charged but its answer never comes".
import type { FastifyReply, FastifyRequest } from 'fastify';

export const FAULT_TARGETS = [
  'braintree.clientToken',
  'braintree.sale',
  'braintree.find',
  'braintree.search',
  'braintree.void',
  'braintree.refund',
  'paypal.oauth',
  'paypal.payouts',
  'paypal.getBatch',
] as const;
export type FaultTarget = (typeof FAULT_TARGETS)[number];

export type Fault =
  /**
   * Answer this HTTP status (PayPal: with this error name, if given). With afterEffect the work is done
   * first (the payout is made, yet the answer is an error); without it nothing happens.
   */
  | { kind: 'status'; status: number; name?: string; afterEffect?: boolean }
  /**
   * Hold the answer for delayMs, then drop the connection. With afterEffect the work is done first (the
   * charge or the payout happens, only its answer is lost); without it nothing happens.
   */
  | { kind: 'timeout'; delayMs: number; afterEffect: boolean }
  /** PayPal only: the batch is recorded as if an earlier call had landed, and the answer is the duplicate error. */
  | { kind: 'duplicate' }
  /** The work is done and a success status with half a body goes out, then the connection drops. */
  | { kind: 'cut' };

export interface FaultRequest {
  target: FaultTarget;
  kind: Fault['kind'];
  status?: number;
  /** PayPal only: the error name of a status fault (VALIDATION_ERROR, INSUFFICIENT_FUNDS...). */
  name?: string;
  delayMs?: number;
  afterEffect?: boolean;
  times?: number;
}

export class Faults {
  private queues = new Map<FaultTarget, Fault[]>();

  add(request: FaultRequest): void {
    if (!FAULT_TARGETS.includes(request.target))
      throw new Error(`target must be one of ${FAULT_TARGETS.join(', ')}`);
    let fault: Fault;
    if (request.kind === 'status') {
      const status = request.status ?? 503;
      if (!Number.isInteger(status) || status < 400 || status > 599)
        throw new Error('status must be an HTTP error status (400-599)');
      if (request.name !== undefined && !/^[A-Z][A-Z0-9_]{0,63}$/.test(request.name))
        throw new Error('name must be an error name in capitals (A-Z, 0-9, _), as PayPal spells them');
      if (request.name !== undefined && !request.target.startsWith('paypal.'))
        throw new Error('name applies to PayPal targets only');
      fault = {
        kind: 'status',
        status,
        ...(request.name ? { name: request.name } : {}),
        ...(request.afterEffect ? { afterEffect: true } : {}),
      };
    } else if (request.kind === 'timeout') {
      fault = {
        kind: 'timeout',
        delayMs: Math.min(Math.max(request.delayMs ?? 5000, 0), 120_000),
        afterEffect: request.afterEffect ?? true,
      };
    } else if (request.kind === 'cut') {
      fault = { kind: 'cut' };
    } else if (request.kind === 'duplicate') {
      if (request.target !== 'paypal.payouts') throw new Error('duplicate applies to paypal.payouts only');
      fault = { kind: 'duplicate' };
    } else {
      throw new Error('kind must be status, timeout, cut or duplicate');
    }
    const times = Math.min(Math.max(Math.trunc(request.times ?? 1), 1), 1000);
    const queue = this.queues.get(request.target) ?? [];
    for (let i = 0; i < times; i++) queue.push(fault);
    this.queues.set(request.target, queue);
  }

  /** The fault for this request, if one is queued (consumed). */
  take(target: FaultTarget): Fault | undefined {
    return this.queues.get(target)?.shift();
  }

  pending(): Record<string, number> {
    return Object.fromEntries(
      [...this.queues].filter(([, q]) => q.length > 0).map(([t, q]) => [t, q.length]),
    );
  }

  clear(): void {
    this.queues.clear();
  }
}

/** What the app gives each provider's routes: the fault queue, its own URL, and the call log. */
export interface ProviderRouteOptions {
  faults: Faults;
  /** Public URL of this emulator (the Braintree client token's configUrl, PayPal's links). */
  publicUrl: () => string;
  record: (call: { target: FaultTarget; key: string | null; outcome: string }) => void;
  /** Applies a queued fault; returns true when the request was answered (or dropped) by it. */
  applyFault: (
    target: FaultTarget,
    request: FastifyRequest,
    reply: FastifyReply,
    effect?: () => void,
    given?: Fault,
    key?: string | null,
  ) => Promise<boolean>;
}
