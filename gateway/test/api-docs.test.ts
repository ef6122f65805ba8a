// The API described at the front door: the OpenAPI and AsyncAPI documents as JSON, and browsable docs
// served from the gateway itself (no CDN) under a policy that lets that page, and only it, run.
import { buildAsyncApiDocument, buildOpenApiDocument } from '@omc/contracts';
import { resetRedis, testInfra } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeWebDist,
  rawRequest,
  startGateway,
  startStandIn,
  type Gateway,
  type StandIn,
} from './support.js';

describe('the API description at /api/openapi.json and /api/docs', () => {
  let upstream: StandIn;
  let gateway: Gateway;

  beforeAll(async () => {
    await resetRedis();
    upstream = await startStandIn('any');
    gateway = await startGateway({
      AUTH_URL: upstream.url,
      GAME_URL: upstream.url,
      PAYMENTS_URL: upstream.url,
      REALTIME_URLS: 'http://127.0.0.1:9',
      REDIS_URL: testInfra().redisUrls.gateway,
      WEB_DIST: makeWebDist(),
      RATE_LIMIT_PER_IP: '0',
    });
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('serves the OpenAPI document generated from the catalogue, as JSON', async () => {
    const answer = await rawRequest(gateway.url, '/api/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toContain('application/json');
    expect(answer.json()).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    expect(upstream.hits).toEqual([]);
  });

  it('serves the AsyncAPI document of the live events', async () => {
    const answer = await rawRequest(gateway.url, '/api/asyncapi.json');
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual(JSON.parse(JSON.stringify(buildAsyncApiDocument())));
  });

  it('serves browsable docs with their scripts and styles from the gateway, allowed by the page policy', async () => {
    const page = await rawRequest(gateway.url, '/api/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    const policy = String(page.headers['content-security-policy']);
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toMatch(/https?:\/\//);
    // Every script and stylesheet the page names is served here: nothing is fetched from elsewhere.
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      expect(asset).not.toMatch(/^(https?:)?\/\//);
      const url = new URL(asset, `${gateway.url}/api/docs/`);
      const answer = await rawRequest(gateway.url, url.pathname);
      expect(answer.status, url.pathname).toBe(200);
    }
    // The API's own answers keep their closed policy.
    const json = await rawRequest(gateway.url, '/api/openapi.json');
    expect(json.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
  });
});
