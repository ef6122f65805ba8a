import { ACCOUNT_SUSPENDED, ClickResponse, ERROR_CODE, suspendedMessage } from '@omc/contracts';
import {
  addressBudgetKey,
  AppError,
  authenticate,
  conflict,
  forbidden,
  tooManyRequests,
} from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { GameContext } from '../context.js';
import type { ClickOutcome } from '../engine/game-engine.js';
import { clickGate, type ClickQueueOptions } from './admission.js';

interface ClickRates {
  perUser: number;
  perAddress: number;
  /** The bound on queued clicks (clicks/admission.ts); absent means unbounded. */
  queue?: ClickQueueOptions;
}

function refusal(outcome: Exclude<ClickOutcome, { accepted: true }>, rates: ClickRates): AppError {
  switch (outcome.reason) {
    case 'no_clicks':
      return forbidden('No clicks left: earn more at the milestones or buy a pack');
    case 'rate_limited':
      return tooManyRequests(`Too many clicks: at most ${rates.perUser} per second`);
    case 'address_rate_limited':
      return tooManyRequests(`Too many clicks from your network: at most ${rates.perAddress} per second`);
    case 'unknown_user':
      return conflict('Your account is not known to the game yet; try again in a moment');
    case 'deleted_user':
      return new AppError(ERROR_CODE.UNAUTHORIZED, 401, 'This account no longer exists');
    case 'suspended':
      // The reason is read apart (only on this refusal), so the click path carries no text.
      return new AppError(ACCOUNT_SUSPENDED, 403, suspendedMessage(null));
    case 'stale_token':
      return new AppError(
        ERROR_CODE.UNAUTHORIZED,
        401,
        'Your account had a security change (password, email or sign-out everywhere) since this session signed in; please sign in again',
      );
  }
}

export async function clickRoutes(app: FastifyInstance, { deps, engine, users }: GameContext): Promise<void> {
  const rates: ClickRates = {
    perUser: deps.config.CLICK_RATE_PER_USER,
    perAddress: deps.config.CLICK_RATE_PER_IP,
    queue: {
      maxInFlight: deps.config.CLICK_QUEUE_IN_FLIGHT,
      max: deps.config.CLICK_QUEUE_MAX,
      targetMs: deps.config.CLICK_QUEUE_TARGET_MS,
      intervalMs: deps.config.CLICK_QUEUE_INTERVAL_MS,
    },
  };
  const gate = clickGate(rates.queue ?? { maxInFlight: 0, max: 0, targetMs: 0, intervalMs: 0 }, deps.metrics);
  app.addHook('onClose', async () => gate.close());
  app.addHook('onRequest', authenticate);
  app
    .withTypeProvider<ZodTypeProvider>()
    .post('/api/game/click', { schema: { response: { 200: ClickResponse } } }, async (request, reply) => {
      const outcome = await gate.run(reply, () =>
        // A token without a version (signed before versions existed) counts as the first one.
        engine.click(request.user.sub, addressBudgetKey(request.ip), request.user.sv ?? 0),
      );
      if (outcome === undefined) return reply;
      if (outcome.accepted === false && outcome.reason === 'suspended')
        throw new AppError(
          ACCOUNT_SUSPENDED,
          403,
          suspendedMessage(await users.suspensionReason(request.user.sub).catch(() => null)),
        );
      if (!outcome.accepted) {
        // The click limits are per second: the refusal says when to come back, as a shed click does, so
        // the gateway can tell a client that waits from one that does not (gateway/src/edge/retry-penalty.ts).
        if (outcome.reason === 'rate_limited' || outcome.reason === 'address_rate_limited')
          void reply.header('retry-after', '1');
        throw refusal(outcome, rates);
      }
      return {
        globalClicks: outcome.globalClicks,
        freeClicks: outcome.freeClicks,
        purchasedClicks: outcome.purchasedClicks,
        hasInfiniteClicks: outcome.hasInfiniteClicks,
        round: outcome.round,
        ...(outcome.reward > 0
          ? { milestone: { at: outcome.globalClicks, freeClicks: outcome.reward } }
          : {}),
        ...(outcome.won ? { won: true } : {}),
      };
    });
}
