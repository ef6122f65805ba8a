// Security headers on every answer. The content security policy admits what the Braintree drop-in and
// its wallets load (scripts, frames, API calls) and the live socket (ws:/wss:), nothing else. Helmet's
// middleware is built once at start-up and applied to each page answer, so no request pays for parsing
// the policy again. API answers (JSON, never rendered as a page) get a short fixed set instead: the
// page's policy is 2 KB of payment origins that mean nothing for data, and it was most of the bytes of
// every click's answer (docs/performance.md, "The front door's profile").
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

/** What an API answer needs: no sniffing, no framing, no embedding elsewhere, no policy for a page. */
export const API_SECURITY_HEADERS: readonly (readonly [string, string])[] = [
  ['content-security-policy', "default-src 'none'; frame-ancestors 'none'"],
  ['x-content-type-options', 'nosniff'],
  ['x-frame-options', 'DENY'],
  ['cross-origin-resource-policy', 'same-origin'],
  ['referrer-policy', 'strict-origin-when-cross-origin'],
];

/**
 * The browsable API docs (/api/docs): a page whose scripts, styles and images all come from the gateway
 * itself (Swagger UI inlines some styles and data: icons); it may fetch only from here.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The built app's hashed files (/assets/: scripts, the stylesheet, source maps) are never documents: a
 * policy, frame or referrer header means nothing on them and only adds ~2.6 kB to each of the dozen a
 * first screen loads. What applies to a script or stylesheet stays.
 */
export const ASSET_SECURITY_HEADERS: readonly (readonly [string, string])[] = [
  ['x-content-type-options', 'nosniff'],
  ['cross-origin-resource-policy', 'same-origin'],
];

function isDocsPage(url: string): boolean {
  return url === '/api/docs' || url.startsWith('/api/docs/') || url.startsWith('/api/docs?');
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
    if (request.raw.url?.startsWith('/api/')) {
      for (const [name, value] of API_SECURITY_HEADERS) reply.raw.setHeader(name, value);
      if (isDocsPage(request.raw.url))
        reply.raw.setHeader('content-security-policy', DOCS_CONTENT_SECURITY_POLICY);
      return done();
    }
    if (request.raw.url?.startsWith('/assets/')) {
      for (const [name, value] of ASSET_SECURITY_HEADERS) reply.raw.setHeader(name, value);
      return done();
    }
    apply(request.raw, reply.raw, (error?: unknown) => done(error as Error | undefined));
  });
}
