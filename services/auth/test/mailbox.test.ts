// One mailbox, one quota: an address is one plain mailbox (no display name, comment, angle brackets,
// quotes or spaces), kept with its domain in lower case, and every spelling of a mailbox shares the one
// mail quota, so a second spelling is no second budget for mailing someone.
import { ErrorBody } from '@omc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, freshIp, newUser, register, startAuth, type AuthHarness } from './support.js';

describe('one mailbox, one quota', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    // One mail per address and window: the quota alone, every other limit off.
    h = await startAuth({
      MAIL_MAX_PER_ADDRESS: '1',
      MAIL_MAX_PER_ACCOUNT: '0',
      RESET_MAX_PER_ADDRESS: '0',
      RESET_MAX_PER_IP: '0',
      RESEND_MAX_PER_ACCOUNT: '0',
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  const forgot = (email: string) =>
    h.app.inject({
      method: 'POST',
      url: '/api/user/forgot-password',
      payload: { email },
      headers: { 'x-forwarded-for': freshIp() },
    });
  const registerAs = (email: string) =>
    h.app.inject({
      method: 'POST',
      url: '/api/user/register',
      payload: { ...newUser('box'), email },
      headers: { 'x-forwarded-for': freshIp() },
    });

  it.each([
    'x1<victim@example.org>',
    'x2 <victim@example.org>',
    '<victim@example.org>',
    '"x3"@example.org',
    'victim@example.org (x4)',
    'victim(x5)@example.org',
    'x6 victim@example.org',
    'victim@example.org,x7@example.org',
    'vic\\tim@example.org',
    'victim@example.org\u00a0',
    'victim@example.org\uff1e',
  ])('registering %j is a 400 naming email, and mails no one', async (email) => {
    const response = await registerAs(email);
    expect(response.statusCode, response.body).toBe(400);
    const body = ErrorBody.parse(response.json());
    expect(body.field).toBe('email');
    expect(body.message).toMatch(/one plain address/);
  });

  it('an address is kept with its domain in lower case, its local part as typed', async () => {
    const user = newUser('case');
    const typed = `Mixed.${user.username}@Example.ORG`;
    const made = await register(h.app, { ...user, email: typed });
    const profile = await h.app.inject({ url: '/api/user/profile', headers: bearer(made.token) });
    expect(profile.json().email).toBe(`Mixed.${user.username}@example.org`);
  });

  it('every spelling of a mailbox shares one quota', async () => {
    const box = `victim${Date.now().toString(36)}`;
    expect((await forgot(`${box}@example.org`)).statusCode).toBe(202);
    // The domain's case, the local part's case, and a compatibility form (fullwidth letters) of the same
    // mailbox: each past the one mail the window allows.
    for (const spelling of [
      `${box}@EXAMPLE.org`,
      `${box.toUpperCase()}@example.org`,
      `\uff56${box.slice(1)}@example.org`,
    ]) {
      const again = await forgot(spelling);
      expect(again.statusCode, `${spelling}: ${again.body}`).toBe(429);
    }
  });
});
