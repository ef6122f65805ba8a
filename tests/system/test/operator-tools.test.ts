// The operator's tools through the one front door, on the whole running system: an admin finds a
// player and suspends them; the player is then refused everywhere money or play is concerned, with the
// reason; the audit log says who did it; restoring lets them back. Players get 403 on every admin route.
import { AdminUsersPage, AuditPage, ErrorBody } from '@omc/contracts';
import { describe, expect, inject, it } from 'vitest';
import { SYSTEM_ADMIN } from './global-setup.js';

const { gatewayUrl } = inject('system');

async function call(method: string, path: string, options: { token?: string; body?: unknown } = {}) {
  const response = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: response.status, body: (await response.json().catch(() => undefined)) as any };
}

async function signIn(emailOrUsername: string, password: string) {
  return call('POST', '/api/user/login', { body: { emailOrUsername, password } });
}

describe('operator tools through the gateway', () => {
  it('suspend: the player is refused sign-in, purchase and collect with the reason; audited; restore lets them back', async () => {
    const admin = (await signIn(SYSTEM_ADMIN.username, SYSTEM_ADMIN.password)).body.token as string;
    expect(admin).toBeTruthy();
    const username = `susp_${Date.now().toString(36)}`;
    const password = 'secret-susp-1';
    const registered = await call('POST', '/api/user/register', {
      body: { username, email: `${username}@example.com`, password },
    });
    expect(registered.status).toBe(201);
    const player = registered.body.token as string;

    // A player is no operator.
    for (const [method, path, body] of [
      ['GET', '/api/admin/users?query=a', undefined],
      ['GET', '/api/admin/audit', undefined],
      ['POST', `/api/admin/users/${crypto.randomUUID()}/suspend`, { reason: 'not mine to give' }],
      ['POST', `/api/admin/users/${crypto.randomUUID()}/restore`, { reason: 'not mine to give' }],
    ] as const)
      expect((await call(method, path, { token: player, body })).status, path).toBe(403);

    const found = AdminUsersPage.parse(
      (await call('GET', `/api/admin/users?query=${username}`, { token: admin })).body,
    );
    expect(found.users).toHaveLength(1);
    const id = found.users[0]!.id;
    expectBadInput(
      await call('POST', `/api/admin/users/${id}/suspend`, { token: admin, body: {} }),
      'reason',
    );
    expectBadInput(await call('GET', '/api/admin/users?limit=500', { token: admin }), 'limit');

    const reason = 'Scripted clicking from many accounts';
    expect(
      (await call('POST', `/api/admin/users/${id}/suspend`, { token: admin, body: { reason } })).status,
    ).toBe(200);

    for (const [method, path, body] of [
      ['GET', '/api/user/profile', undefined],
      ['POST', '/api/payments/checkout', { paymentMethodNonce: 'fake-valid-nonce', amount: '0.99' }],
      ['POST', '/api/winners/collect', undefined],
    ] as const) {
      const refused = await call(method, path, { token: player, body });
      expect(refused.status, path).toBe(401);
      expect(ErrorBody.parse(refused.body).message, path).toContain(reason);
    }
    const signInRefused = await signIn(username, password);
    expect(signInRefused.status).toBe(403);
    expect(ErrorBody.parse(signInRefused.body).message).toContain(reason);

    expect(
      (
        await call('POST', `/api/admin/users/${id}/restore`, {
          token: admin,
          body: { reason: 'Appeal upheld' },
        })
      ).status,
    ).toBe(200);
    expect((await signIn(username, password)).status).toBe(200);

    const audit = AuditPage.parse(
      (await call('GET', `/api/admin/audit?targetId=${id}`, { token: admin })).body,
    );
    expect(audit.entries.map((e) => [e.action, e.actor?.label])).toEqual([
      ['user.restored', SYSTEM_ADMIN.username],
      ['user.suspended', SYSTEM_ADMIN.username],
    ]);
    expect(audit.entries[1]!.ip).toBeTruthy();
  });
});

function expectBadInput(answer: { status: number; body: unknown }, field: string) {
  expect(answer.status).toBe(400);
  const body = ErrorBody.parse(answer.body);
  expect(body.field).toBe(field);
  expect(body.message).toContain(field);
}
