// The rule is read from contracts, not written again: with another rule in contracts (only standard
// players privileged), the click script and the balance follow it.
import { describe, expect, it, vi } from 'vitest';
import { hasUnlimitedClicks } from '../src/engine/redis/user-record.js';
import { SCRIPT_ROUND, useClickScript } from './scripts.js';

vi.mock('@omc/contracts', async (importOriginal) => {
  const contracts = await importOriginal<typeof import('@omc/contracts')>();
  const PRIVILEGED_ROLES = ['standard'] as const;
  return {
    ...contracts,
    PRIVILEGED_ROLES,
    isPrivileged: (role: string | null | undefined) => role === 'standard',
  };
});

describe('the privileged roles come from contracts', () => {
  const click = useClickScript('{omc:game}:privileged-source-test');

  it('follows a changed rule in the script and in the balance', async () => {
    expect(await click({ role: 'standard' })).toMatchObject({ status: 'accepted', balance: null });
    expect(await click({ role: 'admin' })).toMatchObject({ status: 'no_clicks', balance: 0 });
    expect(await click({ role: 'superuser' })).toMatchObject({ status: 'no_clicks', balance: 0 });
    expect(hasUnlimitedClicks({ role: 'standard', passRound: 0 }, SCRIPT_ROUND)).toBe(true);
    expect(hasUnlimitedClicks({ role: 'admin', passRound: 0 }, SCRIPT_ROUND)).toBe(false);
  });
});
