// Internal calls prove who calls: each service signs a short-lived JWT (EdDSA, its own Ed25519 key) with
// `iss` = itself and `aud` = the service it calls; the callee checks it against the callers that
// packages/contracts INTERNAL_ROUTES lists for the route. No credential, a bad or expired one: 401. A
// valid credential of a service the route does not list: 403. The network policy is the second fence.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import {
  callersOf,
  INTERNAL_PREFIX,
  internalRoute,
  SERVICE_CREDENTIAL_HEADER,
  type Service,
} from '@omc/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parsePublicKeys } from './auth.js';
import { forbidden, unauthorized } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The service an internal route's caller proved to be (set by the caller check). */
    callerService?: Service;
  }
}

/** How long a credential is valid: long enough for one call and its retries, too short to be worth stealing. */
export const SERVICE_CREDENTIAL_TTL_SECONDS = 60;
const SERVICES: readonly Service[] = ['auth', 'game', 'payments'];
/** Verified credentials kept per process, so a caller's reused credential costs one Ed25519 check. */
const VERIFIED_CACHED = 1000;

export interface ServiceKeys {
  /** This service's own Ed25519 private key (PEM): it signs the credentials of the calls it makes. */
  privateKey: string;
  /** The public keys (PEM; several during a rotation) of the services allowed to call this one. */
  callerKeys: Partial<Record<Service, string>>;
}

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');
const HEADER = base64url(JSON.stringify({ alg: 'EdDSA', typ: 'JWT' }));

export class ServiceCredentials {
  private readonly privateKey: KeyObject;
  private readonly callerKeys = new Map<Service, KeyObject[]>();
  private readonly signed = new Map<Service, { token: string; renewAt: number }>();
  private readonly verified = new Map<string, { caller: Service; exp: number }>();

  constructor(
    readonly self: Service,
    keys: ServiceKeys,
    private readonly now: () => number = Date.now,
  ) {
    this.privateKey = createPrivateKey(keys.privateKey);
    for (const [service, pem] of Object.entries(keys.callerKeys) as [Service, string | undefined][])
      if (pem)
        this.callerKeys.set(
          service,
          parsePublicKeys(pem).map((key) => createPublicKey(key)),
        );
  }

  /** A credential for a call to `audience`, signed anew when half its life is gone. */
  credentialFor(audience: Service): string {
    const nowMs = this.now();
    const kept = this.signed.get(audience);
    if (kept && kept.renewAt > nowMs) return kept.token;
    const iat = Math.floor(nowMs / 1000);
    const payload = base64url(
      JSON.stringify({ iss: this.self, aud: audience, iat, exp: iat + SERVICE_CREDENTIAL_TTL_SECONDS }),
    );
    const signature = sign(null, Buffer.from(`${HEADER}.${payload}`), this.privateKey).toString('base64url');
    const token = `${HEADER}.${payload}.${signature}`;
    this.signed.set(audience, { token, renewAt: nowMs + (SERVICE_CREDENTIAL_TTL_SECONDS * 1000) / 2 });
    return token;
  }

  /** The headers that carry the credential of a call to `audience`. */
  headersFor(audience: Service): Record<string, string> {
    return { [SERVICE_CREDENTIAL_HEADER]: this.credentialFor(audience) };
  }

  /**
   * The service a credential was signed by, when it is addressed to this service and unexpired; 401 when
   * it is missing or not valid, 403 when it is signed by a service this one holds no key of (no route
   * here lists it as a caller).
   */
  callerOf(credential: string | string[] | undefined): Service {
    if (typeof credential !== 'string' || credential.length === 0)
      throw unauthorized(`Internal route: a service credential (${SERVICE_CREDENTIAL_HEADER}) is required`);
    const nowS = Math.floor(this.now() / 1000);
    const kept = this.verified.get(credential);
    if (kept && kept.exp > nowS) return kept.caller;
    const invalid = () => unauthorized('Internal route: the service credential is not valid');
    const [header, payload, signature, extra] = credential.split('.');
    if (header !== HEADER || !payload || !signature || extra !== undefined) throw invalid();
    let claims: { iss?: unknown; aud?: unknown; iat?: unknown; exp?: unknown };
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as typeof claims;
    } catch {
      throw invalid();
    }
    const { iss, aud, iat, exp } = claims;
    if (!SERVICES.includes(iss as Service) || aud !== this.self) throw invalid();
    if (typeof iat !== 'number' || typeof exp !== 'number') throw invalid();
    if (exp <= nowS || iat > nowS + 5 || exp - iat > SERVICE_CREDENTIAL_TTL_SECONDS)
      throw unauthorized('Internal route: the service credential has expired');
    const caller = iss as Service;
    const keys = this.callerKeys.get(caller);
    if (!keys) throw forbidden(`Internal route: ${caller} is not a caller of ${this.self}`);
    const data = Buffer.from(`${header}.${payload}`);
    const proof = Buffer.from(signature, 'base64url');
    if (!keys.some((key) => verify(null, data, key, proof))) throw invalid();
    if (this.verified.size >= VERIFIED_CACHED) this.verified.clear();
    this.verified.set(credential, { caller, exp });
    return caller;
  }
}

/**
 * Guards every route of `app` on an internal path: registering one that INTERNAL_ROUTES does not list
 * fails (so a new internal route names its callers), and each request must carry the credential of a
 * caller its entry lists. Call before the routes are registered. Without credentials, an internal
 * route cannot be registered at all.
 */
export function registerInternalCallers(
  app: FastifyInstance,
  credentials: ServiceCredentials | undefined,
): void {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(INTERNAL_PREFIX)) return;
    if (!credentials) throw new Error(`${route.url}: an internal route needs the service's credentials`);
    const service = credentials.self;
    for (const method of [route.method].flat()) {
      if (method === 'HEAD' || internalRoute(service, method, route.url)) continue;
      throw new Error(`${method} ${route.url} on ${service} is not in the internal route catalogue`);
    }
  });
  if (!credentials) return;
  const service = credentials.self;
  app.addHook('onRequest', async function requireInternalCaller(request: FastifyRequest) {
    const path = request.routeOptions.url;
    if (!path?.startsWith(INTERNAL_PREFIX)) return;
    const caller = credentials.callerOf(request.headers[SERVICE_CREDENTIAL_HEADER]);
    const route = internalRoute(service, request.method, path);
    if (!route?.callers.includes(caller))
      throw forbidden(`Internal route: ${caller} may not call ${request.method} ${path}`);
    request.callerService = caller;
  });
}

/** The key settings of a service (serviceKeysEnvSchema, as much of it as the service reads). */
export interface ServiceKeySettings {
  SERVICE_PRIVATE_KEY: string;
  AUTH_SERVICE_PUBLIC_KEY?: string;
  GAME_SERVICE_PUBLIC_KEY?: string;
  PAYMENTS_SERVICE_PUBLIC_KEY?: string;
}

/** A service's credentials from its settings: its own key, and the keys of the callers its routes list. */
export function serviceCredentials(self: Service, settings: ServiceKeySettings): ServiceCredentials {
  const publicKeys: Record<Service, string | undefined> = {
    auth: settings.AUTH_SERVICE_PUBLIC_KEY,
    game: settings.GAME_SERVICE_PUBLIC_KEY,
    payments: settings.PAYMENTS_SERVICE_PUBLIC_KEY,
  };
  const callerKeys = Object.fromEntries(callersOf(self).map((caller) => [caller, publicKeys[caller]]));
  return new ServiceCredentials(self, { privateKey: settings.SERVICE_PRIVATE_KEY, callerKeys });
}
