// Security headers on every answer. The content security policy admits what the Braintree drop-in and
// its wallets load (scripts, frames, API calls) and the live socket (ws:/wss:), nothing else. Helmet's
// middleware is built once at start-up and applied to each answer (the headers never vary by route), so
// no request pays for parsing the policy again.
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

const BRAINTREE = [
  'https://js.braintreegateway.com',
  'https://assets.braintreegateway.com',
  'https://*.braintreegateway.com',
  'https://*.braintree-api.com',
];
const PAYPAL = ['https://*.paypal.com', 'https://www.paypalobjects.com', 'https://*.paypalobjects.com'];
const WALLETS = [
  'https://pay.google.com',
  'https://www.gstatic.com',
  'https://applepay.cdn-apple.com',
  'https://*.venmo.com',
];

export function contentSecurityPolicy(extraOrigins: string[] = []): Record<string, string[]> {
  const payment = [...BRAINTREE, ...PAYPAL, ...WALLETS, ...extraOrigins];
  return {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'", ...payment],
    styleSrc: ["'self'", "'unsafe-inline'", ...BRAINTREE],
    imgSrc: ["'self'", 'data:', 'blob:', ...payment],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'", 'ws:', 'wss:', ...payment, 'https://google.com/pay'],
    frameSrc: ["'self'", ...payment],
    childSrc: ["'self'", ...payment],
    workerSrc: ["'self'", 'blob:'],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'", ...PAYPAL],
    frameAncestors: ["'none'"],
  };
}

export async function securityHeaders(app: FastifyInstance, extraOrigins: string[]): Promise<void> {
  const apply = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityPolicy(extraOrigins) },
    // The payment wallets open PayPal and Google Pay windows that talk back to this page.
    crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
    crossOriginEmbedderPolicy: false,
    // Plain HTTP at this edge (TLS ends in front of it); HSTS belongs to whoever terminates TLS.
    strictTransportSecurity: false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    frameguard: { action: 'deny' },
  });
  app.addHook('onRequest', (request, reply, done) => {
    apply(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined));
  });
}
