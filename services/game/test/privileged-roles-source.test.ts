// The rule is read from contracts, not written again: with another rule in contracts (only standard
// players privileged), the click script and the balance follow it.
import { afterAll, describe, expect, it, vi } from 'vitest';

vi.mock('@omc/contracts', async (importOriginal) => {
  const contracts = await importOriginal<typeof import('@omc/contracts')>();
  const PRIVILEGED_ROLES = ['standard'] as const;
  return {
    ...contracts,
    PRIVILEGED_ROLES,
    isPrivileged: (role: string | null | undefined) => role === 'standard',
  };
});

// Test files share their worker's modules (isolate: false): the game's modules are imported afresh so
// they see the mock, and forgotten again after, so the next file sees the real contracts.
vi.resetModules();
const { hasUnlimitedClicks } = await import('../src/engine/redis/user-record.js');
const { SCRIPT_ROUND, useClickScript } = await import('./scripts.js');
afterAll(() => {
  vi.doUnmock('@omc/contracts');
  vi.resetModules();
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
