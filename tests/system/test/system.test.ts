// The foundation's promises, checked on the running system: one front door serving the web app and
// the API, readiness that names each dependency, and request ids that follow a request across processes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GameStateResponse } from '@omc/contracts';
import { eventually } from '@omc/testkit';
import { describe, expect, inject, it } from 'vitest';

const { gatewayUrl, logsDir, urls } = inject('system');

describe('the running system', () => {
  it('serves the web app at / and on any client route', async () => {
    for (const path of ['/', '/game', '/some/unknown/page']) {
      const response = await fetch(gatewayUrl + path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/text\/html/);
      expect(await response.text()).toContain('<div id="root">');
    }
  });

  it('answers the game state through the gateway as JSON from the game service', async () => {
    const response = await fetch(`${gatewayUrl}/api/game/state`);
    expect(response.status).toBe(200);
    expect(GameStateResponse.parse(await response.json()).gameState.globalClicks).toBeGreaterThanOrEqual(0);
  });

  it('answers an unknown API route with a JSON 404', async () => {
    const response = await fetch(`${gatewayUrl}/api/nothing/here`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ message: expect.any(String) });
  });

  it('reports each dependency of each service on /readyz', async () => {
    const expected: Record<string, string[]> = {
      auth: ['postgres', 'redis', 'nats'],
      game: ['postgres', 'redis', 'nats'],
      payments: ['postgres', 'nats'],
      realtime: ['redis', 'nats'],
    };
    for (const [service, dependencies] of Object.entries(expected)) {
      const response = await fetch(`${urls[service]}/readyz`);
      expect(response.status, service).toBe(200);
      const body = (await response.json()) as { checks: Record<string, string> };
      for (const dependency of dependencies) expect(body.checks[dependency], `${service} ${dependency}`).toBe('ok');
    }
  });

  it('carries the x-request-id given to the gateway into the logs of the service it reached', async () => {
    const requestId = `trace-${Date.now()}`;
    const response = await fetch(`${gatewayUrl}/api/game/state`, { headers: { 'x-request-id': requestId } });
    expect(response.headers.get('x-request-id')).toBe(requestId);
    await eventually(() => readFileSync(join(logsDir, 'game.log'), 'utf8').includes(requestId), 'the id in the game log');
  });
});
