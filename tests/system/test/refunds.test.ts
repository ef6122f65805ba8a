// Refunding a purchase through the one front door, on the whole running system: players get 403, bad
// input a 400 naming it; the admin's refund voids the charge at the (emulated) provider once, however
// many requests arrive together; the game takes back the buyer's unspent clicks and the round's pot
// share (the counter's pot shows it); the audit log names the admin, the buyer and the address; the
// player's purchase view says voided; and payments' own ledger check passes on its database.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  AdminPurchasesPage,
  AdminUsersPage,
  AuditPage,
  ErrorBody,
  GameProfile,
  RefundResponse,
} from '@omc/contracts';
import { workspaceRoot } from '@omc/testkit';
import { describe, expect, inject, it } from 'vitest';
import { SYSTEM_ADMIN } from './global-setup.js';

const { gatewayUrl, databaseUrls, logsDir } = inject('system');

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

const began = Date.now();

/**
 * How long a purchase, a take-back or an outbox row may take to settle on a running system: the bound the
 * money audit holds every fault to (docs/reliability.md, "Many replicas, proven": lost). The test's own
 * timeout is above the sum of its waits (vitest.config.ts).
 */
const SETTLED_MS = 60_000;

/**
 * What the services logged of `ids`, and every warning since the test began: a wait that timed out says
 * where the event stopped.
 */
function logsOf(ids: string[]): string {
  const recentWarning = (line: string) =>
    /"level":[4-6]\d/.test(line) && Number(/"time":(\d+)/.exec(line)?.[1] ?? 0) >= began;
  return ['auth', 'payments', 'game']
    .flatMap((service) => {
      const file = join(logsDir, `${service}.log`);
      if (!existsSync(file)) return [];
      return readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => ids.some((id) => line.includes(id)) || recentWarning(line))
        .slice(-15)
        .map((line) => `${service}: ${line.slice(0, 600)}`);
    })
    .join('\n');
}

async function until<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  what: string,
  ids: string[] = [],
): Promise<T> {
  const deadline = Date.now() + SETTLED_MS;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}\n${logsOf(ids)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const pot = async () => (await call('GET', '/api/game/state')).body.gameState.pot as number;
const purchasedClicks = async (token: string) =>
  GameProfile.parse((await call('GET', '/api/game/profile', { token })).body).purchasedClicks ?? 0;

describe('refunds through the gateway', () => {
  it('admin only; voided once; clicks and pot share taken back; audited; ledger balanced', async () => {
    const admin = (
      await call('POST', '/api/user/login', {
        body: { emailOrUsername: SYSTEM_ADMIN.username, password: SYSTEM_ADMIN.password },
      })
    ).body.token as string;
    const username = `refund_${Date.now().toString(36)}`;
    const registered = await call('POST', '/api/user/register', {
      body: { username, email: `${username}@example.com`, password: 'secret-refund-1' },
    });
    expect(registered.status).toBe(201);
    const player = registered.body.token as string;
    const playerId = AdminUsersPage.parse(
      (await call('GET', `/api/admin/users?query=${username}`, { token: admin })).body,
    ).users[0]!.id;

    const buy = async () => {
      const bought = await call('POST', '/api/payments/checkout', {
        token: player,
        body: { paymentMethodNonce: 'fake-valid-nonce', amount: '0.99', idempotencyKey: crypto.randomUUID() },
      });
      expect(bought.body.success).toBe(true);
      return bought.body.transactionId as string;
    };
    const potBefore = await pot();
    const firstTransaction = await buy();
    await until(
      () => purchasedClicks(player),
      (n) => n === 100,
      'the purchase applied',
      [playerId, firstTransaction],
    );
    await until(pot, (p) => Math.abs(p - (potBefore + 0.49)) < 0.001, 'the pot share in the pot');
    for (let i = 0; i < 3; i++)
      expect((await call('POST', '/api/game/click', { token: player })).status).toBe(200);
    const potAfterClicks = await pot();

    const purchases = AdminPurchasesPage.parse(
      (await call('GET', `/api/admin/purchases?userId=${playerId}`, { token: admin })).body,
    ).purchases;
    const purchase = purchases.find((p) => p.transactionId === firstTransaction)!;
    expect(purchase).toMatchObject({ status: 'succeeded', amount: 0.99, clicks: 100, refund: null });

    // A player is no operator; bad input is named.
    for (const [method, path, body] of [
      ['POST', `/api/admin/purchases/${purchase.id}/refund`, { reason: 'my own refund' }],
      ['GET', `/api/admin/purchases?userId=${playerId}`, undefined],
      ['GET', `/api/admin/payouts?userId=${playerId}`, undefined],
    ] as const)
      expect((await call(method, path, { token: player, body })).status, path).toBe(403);
    const noReason = await call('POST', `/api/admin/purchases/${purchase.id}/refund`, {
      token: admin,
      body: {},
    });
    expect(noReason.status).toBe(400);
    expect(ErrorBody.parse(noReason.body).message).toContain('reason');
    const badId = await call('POST', '/api/admin/purchases/nope/refund', {
      token: admin,
      body: { reason: 'x y z' },
    });
    expect(badId.status).toBe(400);
    expect(ErrorBody.parse(badId.body).message).toContain('id');

    // Five at once: one refund, the others 409.
    const reason = 'Bought by a child without permission';
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        call('POST', `/api/admin/purchases/${purchase.id}/refund`, { token: admin, body: { reason } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
    const refund = RefundResponse.parse(answers.find((a) => a.status === 200)!.body).refund;
    expect(refund).toMatchObject({
      status: 'completed',
      kind: 'void',
      amount: 0.99,
      clicksTakenBack: 97,
      potTakenBack: 0.49,
      houseTakenBack: 0.5,
      operatorLoss: 0,
    });
    const again = await call('POST', `/api/admin/purchases/${purchase.id}/refund`, {
      token: admin,
      body: { reason },
    });
    expect(again.status).toBe(409);
    expect(ErrorBody.parse(again.body).message).toMatch(/already refunded/);

    // What the player and everyone watching the counter see.
    expect(await purchasedClicks(player)).toBe(0);
    expect(await pot()).toBeCloseTo(potAfterClicks - 0.49);

    const view = AdminPurchasesPage.parse(
      (await call('GET', `/api/admin/purchases?userId=${playerId}`, { token: admin })).body,
    ).purchases.find((p) => p.id === purchase.id)!;
    expect(view).toMatchObject({ status: 'voided', refund: { status: 'completed', reason } });

    const audit = AuditPage.parse(
      (await call('GET', `/api/admin/audit?action=purchase.refunded&targetId=${playerId}`, { token: admin }))
        .body,
    );
    expect(audit.entries).toHaveLength(1);
    expect(audit.entries[0]).toMatchObject({
      actor: { label: SYSTEM_ADMIN.username },
      target: { id: playerId, label: username },
      detail: { purchaseId: purchase.id, kind: 'void', amount: 0.99, reason, clicksTakenBack: 97 },
    });
    expect(audit.entries[0]!.ip).toBeTruthy();

    // Payments' own ledger check, on the system's payments database.
    const report = execFileSync('pnpm', ['--filter', '@omc/payments', 'run', '--silent', 'ledger:check'], {
      cwd: workspaceRoot(),
      env: { ...process.env, DATABASE_URL: databaseUrls.payments },
      encoding: 'utf8',
    });
    expect(JSON.parse(report)).toMatchObject({ ok: true, problems: [] });
  });
});
