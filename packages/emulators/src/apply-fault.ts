// Applies a queued fault to a provider call: an injected error status, an answer cut halfway, or a
// dropped connection (after the work, when the fault says so). Each one is recorded in the call log.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Fault, Faults, FaultTarget, ProviderRouteOptions } from './faults.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Answers the injected error status, in the provider's own form (PayPal's JSON, Braintree's empty XML). */
async function answerStatus(
  target: FaultTarget,
  reply: FastifyReply,
  status: number,
  name?: string,
): Promise<void> {
  if (target.startsWith('paypal.')) {
    await reply.status(status).send({
      name: name ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'INJECTED_ERROR'),
      message: name
        ? `${name} (injected by the emulator).`
        : 'An internal server error has occurred (injected by the emulator).',
      debug_id: 'emulator',
      details: [],
    });
  } else {
    await reply.status(status).header('content-type', 'application/xml; charset=utf-8').send('');
  }
}

/** Does the work, writes a success status with half a body, then drops the connection. */
async function cutAnswer(target: FaultTarget, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.hijack();
  const status = target === 'paypal.payouts' ? 201 : 200;
  request.raw.socket.write(
    `HTTP/1.1 ${status} OK\r\ncontent-type: application/json\r\ncontent-length: 400\r\n\r\n{"batch_header":{"payout_ba`,
  );
  await sleep(20);
  request.raw.socket.destroy();
}

/** The app's applyFault: takes the target's next fault (or the one given) and answers the request with it. */
export function faultApplier(
  faults: Faults,
  record: ProviderRouteOptions['record'],
): ProviderRouteOptions['applyFault'] {
  return async (target, request, reply, effect, given?: Fault, key: string | null = null) => {
    const fault = given ?? faults.take(target);
    if (!fault || fault.kind === 'duplicate') return false;
    record({
      target,
      key,
      outcome: `injected ${fault.kind}${fault.kind === 'status' ? ` ${fault.status}${fault.name ? ` ${fault.name}` : ''}${fault.afterEffect ? ' after the effect' : ''}` : ''}`,
    });
    if (fault.kind === 'status') {
      if (fault.afterEffect) effect?.();
      await answerStatus(target, reply, fault.status, fault.name);
      return true;
    }
    if (fault.kind === 'cut') {
      effect?.();
      await cutAnswer(target, request, reply);
      return true;
    }
    if (fault.afterEffect) effect?.();
    reply.hijack();
    await sleep(fault.delayMs);
    request.raw.socket.destroy();
    return true;
  };
}
