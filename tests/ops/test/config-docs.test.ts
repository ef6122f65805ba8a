// docs/configuration.md is what the configuration schemas say today: every variable of the gateway and
// of every service, with its default and meaning. Add or change a setting, run `pnpm run docs:config`.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONFIG_DOC,
  CONFIGURED,
  configurationDoc,
  settingsOf,
  undocumentedSettings,
} from '../src/config-docs.js';

describe('docs/configuration.md', () => {
  it('is current (pnpm run docs:config writes it)', async () => {
    expect(readFileSync(CONFIG_DOC, 'utf8')).toBe(await configurationDoc());
  });

  it('explains every setting: each has a doc comment in its schema', async () => {
    expect(await undocumentedSettings()).toEqual([]);
  });

  it('lists every variable of every deployable, with its default', async () => {
    const doc = readFileSync(CONFIG_DOC, 'utf8');
    for (const c of CONFIGURED)
      for (const s of await settingsOf(c.dir)) {
        expect(doc, `${c.name}: ${s.name}`).toContain(`\`${s.name}\``);
        expect(s.default, `${c.name}: ${s.name}`).not.toBe('');
      }
    // No default that only holds on this machine.
    expect(doc).not.toContain(process.cwd());
  });
});
