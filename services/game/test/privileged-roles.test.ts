// Who clicks without spending is contracts' rule (isPrivileged), and the click script and the balance
// the game shows both follow it: for every role, with and without the round's unlimited pass.
import { isPrivileged, ROLES } from '@omc/contracts';
import { describe, expect, it } from 'vitest';
import { hasUnlimitedClicks } from '../src/engine/redis/user-record.js';
import { SCRIPT_ROUND, useClickScript } from './scripts.js';

describe('the privileged roles, in the click script and in the balance', () => {
  const click = useClickScript('{omc:game}:privileged-roles-test');

  it.each(ROLES)('%s: as contracts say', async (role) => {
    const result = await click({ role });
    expect(result.status).toBe(isPrivileged(role) ? 'accepted' : 'no_clicks');
    expect(result.balance === null).toBe(isPrivileged(role));
    expect(hasUnlimitedClicks({ role, passRound: 0 }, SCRIPT_ROUND)).toBe(isPrivileged(role));
  });

  it.each(ROLES)('%s with the unlimited pass of the round: clicks without spending', async (role) => {
    const result = await click({ role, passRound: SCRIPT_ROUND });
    expect(result).toMatchObject({ status: 'accepted', balance: null });
    expect(hasUnlimitedClicks({ role, passRound: SCRIPT_ROUND }, SCRIPT_ROUND)).toBe(true);
    expect(hasUnlimitedClicks({ role, passRound: SCRIPT_ROUND - 1 }, SCRIPT_ROUND)).toBe(isPrivileged(role));
  });
});
