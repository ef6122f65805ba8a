// The verification mail sent at sign-up is under the one mail quota, counted for the address it mails.
// Sign-up itself never fails on the quota: the account is made, the mail is left unsent, the answer says
// so, and the resend path answers 429 with Retry-After until the address may be mailed again.
import { SUBJECTS } from '@omc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, freshIp, newUser, register, startAuth, type AuthHarness } from './support.js';

describe('the verification mail at sign-up', () => {
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
  const verificationsQueuedFor = async (userId: string) =>
    (
      await h.deps.db
        .selectFrom('outbox')
        .select('payload')
        .where('subject', '=', SUBJECTS.verificationRequested)
        .execute()
    ).filter((row) => JSON.stringify(row.payload).includes(userId)).length;

  it('counts against the address mailed', async () => {
    const user = await register(h.app);
    expect(await verificationsQueuedFor(user.id)).toBe(1);
    const reset = await forgot(user.email);
    expect(reset.statusCode, reset.body).toBe(429);
    expect(reset.json().message).toContain(user.email.toLowerCase());
  });

  it('past the quota: the account is made, the mail is not sent, and resend says when to ask again', async () => {
    const fresh = newUser();
    expect((await forgot(fresh.email)).statusCode).toBe(202);
    const user = await register(h.app, fresh);
    expect(user.response.json().message).toMatch(/verification mail was not sent/);
    expect(await verificationsQueuedFor(user.id)).toBe(0);
    const resend = await h.app.inject({
      method: 'POST',
      url: '/api/user/resend-verification',
      headers: { ...bearer(user.token), 'x-forwarded-for': freshIp() },
    });
    expect(resend.statusCode, resend.body).toBe(429);
    expect(Number(resend.headers['retry-after'])).toBeGreaterThan(0);
  });
});
