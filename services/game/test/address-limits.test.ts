// The per-address click budget beside the per-user one (docs/architecture.md): a farm of accounts behind one
// address shares one budget, while other addresses click on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGame, type Harness, type TestUser } from './support.js';

describe('clicks per address', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGame({
      name: 'address-limits',
      env: { ROUND_TARGET: '100000', CLICK_RATE_PER_USER: '20', CLICK_RATE_PER_IP: '30' },
    });
  });
  afterAll(async () => h?.close());

  const clickFrom = (user: TestUser, ip: string) =>
    h.app.inject({
      method: 'POST',
      url: '/api/game/click',
      headers: { authorization: `Bearer ${user.token}`, 'x-forwarded-for': ip },
    });

  it('refuses a farm behind one address past the address budget, with a clear 429, and lets others click', async () => {
    const farm = await h.registerUsers(5, 'superuser', 'farm');
    const responses = await Promise.all(
      farm.flatMap((user) => Array.from({ length: 15 }, () => clickFrom(user, '203.0.113.7'))),
    );
    const accepted = responses.filter((r) => r.statusCode === 200).length;
    const limited = responses.filter((r) => r.statusCode === 429);
    // 75 clicks, each user under its own limit of 20: only the address budget (30 and a refill) holds them.
    expect(accepted).toBeLessThanOrEqual(36);
    expect(limited.length).toBe(75 - accepted);
    expect(limited[0]!.json().message).toBe('Too many clicks from your network: at most 30 per second');
    expect(limited[0]!.headers['retry-after']).toBe('1');
    const elsewhere = await h.registerUser('standard', 'elsewhere');
    expect((await clickFrom(elsewhere, '198.51.100.9')).statusCode).toBe(200);
  });

  it('counts the address the gateway added, not one the client wrote before it', async () => {
    const farm = await h.registerUsers(4, 'superuser', 'spoof');
    let n = 0;
    const responses = await Promise.all(
      farm.flatMap((user) =>
        Array.from({ length: 15 }, () => clickFrom(user, `10.9.${n++ % 250}.1, 203.0.113.8`)),
      ),
    );
    expect(responses.filter((r) => r.statusCode === 200).length).toBeLessThanOrEqual(36);
  });

  it('counts an IPv6 /64 as one address: a farm spread over its addresses shares one budget', async () => {
    const farm = await h.registerUsers(5, 'superuser', 'six');
    let n = 0;
    const responses = await Promise.all(
      farm.flatMap((user) =>
        Array.from({ length: 15 }, () => clickFrom(user, `2001:db8:77:1::${(++n).toString(16)}`)),
      ),
    );
    expect(responses.filter((r) => r.statusCode === 200).length).toBeLessThanOrEqual(36);
    const nextPrefix = await h.registerUser('standard', 'six-next');
    expect((await clickFrom(nextPrefix, '2001:db8:77:2::1')).statusCode).toBe(200);
  });
});
