// A login that checked the old password just before a password change commits: it waits for the account's
// lock (the one every session ending takes), finds the hash changed under the lock, and is refused as a
// wrong password. No session starts after the change that the change did not end.
import { eventually } from '@omc/testkit';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../src/security/passwords.js';
import { login, register, startAuth, type AuthHarness } from './support.js';

describe('a login racing a password change', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is refused when the password changed while it waited for the account', async () => {
    const user = await register(h.app);
    const newHash = await hashPassword('a-brand-new-password-1');
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let changed!: () => void;
    const changing = new Promise<void>((resolve) => (changed = resolve));
    // The change: its transaction holds the account's row until the login is in flight.
    const change = h.deps.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ password_hash: newHash }).where('id', '=', user.id).execute();
      changed();
      await released;
    });
    await changing;
    let answered = false;
    const attempt = login(h.app, user.username, user.password).finally(() => (answered = true));
    // The login has verified the old (still committed) hash and waits for the row, or it already answered.
    await eventually(async () => {
      if (answered) return true;
      const { rows } = await sql<{ waiting: number }>`
        select count(*)::int as waiting from pg_locks where not granted`.execute(h.deps.db);
      return rows[0]!.waiting > 0;
    }, 'the login answered or waits for the account');
    release();
    await change;
    const answer = await attempt;
    expect(answer.statusCode, answer.body).toBe(401);
    const live = await h.deps.db
      .selectFrom('refresh_tokens')
      .select('id')
      .where('user_id', '=', user.id)
      .where('revoked_at', 'is', null)
      .execute();
    expect(live).toHaveLength(1); // the registration's session alone
  });
});
