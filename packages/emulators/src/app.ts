// One Fastify app serving both providers' APIs on one port, plus /healthz, /readyz and the test
// controls under /__emulator. Every answer says, in a header, that no money moves.
import Fastify, { type FastifyInstance } from 'fastify';
import { faultApplier } from './apply-fault.js';
import { braintreeRoutes } from './braintree/gateway.js';
import { BraintreeState, settleOlderThan } from './braintree/transactions.js';
import { controlRoutes, type EmulatorCall } from './controls.js';
import { Faults } from './faults.js';
import { paypalRoutes } from './paypal/payouts.js';
import { PayPalState } from './paypal/payouts-state.js';

export type { EmulatorCall } from './controls.js';

export const NO_MONEY_HEADER = 'x-emulator-notice';
export const NO_MONEY_NOTICE = 'Local provider emulator: no real money moves.';

export interface Emulator {
  app: FastifyInstance;
  braintree: BraintreeState;
  paypal: PayPalState;
  faults: Faults;
  calls: EmulatorCall[];
}

export interface EmulatorOptions {
  logger?: boolean | { level: string };
  /** The URL clients reach this emulator at (links in answers); defaults to the Host header. */
  publicUrl?: string;
  /**
   * Braintree's settlement batch on its own: a sale submitted for settlement settles this long after it
   * was made (checked every second at most). 0 or absent: only the test controls settle.
   */
  settleAfterMs?: number;
}

/** The SDK sends Content-Type: application/json on bodiless calls (void): an empty body is {}. */
function acceptEmptyJson(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body).trim();
    if (text === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      const error = new Error('Request body is not valid JSON') as Error & { statusCode: number };
      error.statusCode = 400;
      done(error, undefined);
    }
  });
}

/** Appends to the call log, which keeps the last 10,000 calls. */
const recorder =
  (calls: EmulatorCall[]) =>
  (call: Omit<EmulatorCall, 'at'>): void => {
    calls.push({ at: new Date().toISOString(), ...call });
    if (calls.length > 10_000) calls.splice(0, calls.length - 10_000);
  };

export async function buildEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const app = Fastify({
    logger: options.logger ?? false,
    forceCloseConnections: true,
    bodyLimit: 1024 * 1024,
  });
  const braintree = new BraintreeState();
  const paypal = new PayPalState();
  const faults = new Faults();
  const calls: EmulatorCall[] = [];
  let hostUrl = options.publicUrl ?? '';

  acceptEmptyJson(app);
  app.addHook('onRequest', async (request, reply) => {
    if (!options.publicUrl && request.headers.host) hostUrl = `http://${request.headers.host}`;
    reply.header(NO_MONEY_HEADER, NO_MONEY_NOTICE);
  });
  const record = recorder(calls);
  const applyFault = faultApplier(faults, record);

  app.get('/healthz', async () => ({ status: 'ok', notice: NO_MONEY_NOTICE }));
  app.get('/readyz', async () => ({ status: 'ready', notice: NO_MONEY_NOTICE }));

  await app.register(async (scope) =>
    braintreeRoutes(scope, { state: braintree, faults, publicUrl: () => hostUrl, record, applyFault }),
  );
  await app.register(async (scope) =>
    paypalRoutes(scope, { state: paypal, faults, publicUrl: () => hostUrl, record, applyFault }),
  );
  controlRoutes(app, { braintree, paypal, faults, calls });
  if (options.settleAfterMs && options.settleAfterMs > 0) {
    const after = options.settleAfterMs;
    const timer = setInterval(() => settleOlderThan(braintree, after), Math.min(1000, after));
    timer.unref();
    app.addHook('onClose', async () => clearInterval(timer));
  }

  return { app, braintree, paypal, faults, calls };
}
