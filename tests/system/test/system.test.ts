// The foundation's promises, checked on the running system: one front door serving the web app and
// the API, readiness that names each dependency, and request ids that follow a request across processes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GameStateResponse } from '@omc/contracts';
import { verifyEmailFromCatcher } from '@omc/infra';
import { eventually } from '@omc/testkit';
import { describe, expect, inject, it } from 'vitest';

const { gatewayUrl, logsDir, urls, mailUrl } = inject('system');

describe('the running system', () => {
  it('serves the web app at / and on any client route', async () => {
    for (const path of ['/', '/game', '/some/unknown/page']) {
      const response = await fetch(gatewayUrl + path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/text\/html/);
      // The app's root, empty or holding the first screen drawn at build time (docs/web.md).
      expect(await response.text()).toMatch(/<div id="root"[\s>]/);
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
      for (const dependency of dependencies)
        expect(body.checks[dependency], `${service} ${dependency}`).toBe('ok');
    }
  });

  it('carries the x-request-id given to the gateway into the logs of the service it reached', async () => {
    const requestId = `trace-${Date.now()}`;
    const response = await fetch(`${gatewayUrl}/api/game/state`, { headers: { 'x-request-id': requestId } });
    expect(response.headers.get('x-request-id')).toBe(requestId);
    await eventually(
      () => readFileSync(join(logsDir, 'game.log'), 'utf8').includes(requestId),
      'the id in the game log',
    );
  });

  it('with SIGNUP_FREE_CLICKS_AFTER_VERIFICATION on, the sign-up clicks come once the email is verified from the mail', async () => {
    const username = `farm_${Date.now().toString(36)}`;
    const email = `${username}@example.com`;
    const registered = await fetch(`${gatewayUrl}/api/user/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, email, password: 'secret-farm-1' }),
    });
    expect(registered.status).toBeLessThan(300);
    const { token } = (await registered.json()) as { token: string };
    const headers = { authorization: `Bearer ${token}` };
    const freeClicks = async () => {
      const answer = await fetch(`${gatewayUrl}/api/game/profile`, { headers });
      return answer.status === 200 ? ((await answer.json()) as { freeClicks: number }).freeClicks : undefined;
    };
    await eventually(async () => (await freeClicks()) !== undefined, 'the game to know the player');
    expect(await freeClicks()).toBe(0);
    const click = await fetch(`${gatewayUrl}/api/game/click`, { method: 'POST', headers });
    expect(click.status).toBe(403);

    await verifyEmailFromCatcher(email, { mailUrl, apiUrl: gatewayUrl });
    await eventually(async () => (await freeClicks()) === 10, 'the sign-up clicks after verification');
    // A new link asked for the verified address is refused; nothing is granted twice.
    expect(
      (await fetch(`${gatewayUrl}/api/user/resend-verification`, { method: 'POST', headers })).status,
    ).toBe(409);
    await new Promise((r) => setTimeout(r, 500));
    expect(await freeClicks()).toBe(10);
  });
});
