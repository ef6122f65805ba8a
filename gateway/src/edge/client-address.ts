// The caller's address as the gateway trusts it (TRUST_PROXY), for rate limits and X-Forwarded-For, also
// for websocket upgrades that never reach Fastify's routing: service-kit's one implementation, which
// realtime uses too.
export { clientAddress, compileTrust as trustFunction, type TrustProxy } from '@omc/service-kit';
