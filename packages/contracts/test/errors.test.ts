// The error list is the one place codes are spelled: every code a server sends is in it, and the texts
// clients already match stay as they were.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODE, ERROR_CODES, ERRORS, isErrorCode } from '../src/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'node_modules' ? [] : sources(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

describe('the error codes', () => {
  it('name themselves, and a fixed status is a refusal or a failure', () => {
    for (const code of ERROR_CODES) {
      expect(ERROR_CODE[code]).toBe(code);
      const { status } = ERRORS[code] as { status?: number };
      if (status !== undefined) expect(status, code).toBeGreaterThanOrEqual(400);
    }
    expect(isErrorCode('OVERLOADED')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
  });

  it('keep the texts clients match', () => {
    expect(ERRORS.OVERLOADED).toMatchObject({
      status: 503,
      message: 'The game is very busy right now; your click was not counted, try again in a moment',
    });
    expect(ERRORS.RETRY_TOO_SOON).toMatchObject({
      status: 429,
      message: 'Too soon: wait for the Retry-After you were given before clicking again',
    });
    expect(ERRORS.UNAUTHORIZED.message).toBe('Authentication required');
    expect(ERRORS.RATE_LIMITED.message).toBe('Too many requests, slow down');
    expect(ERRORS.INTERNAL.message).toBe('Internal server error');
  });

  it('include every code a server spells out', () => {
    const dirs = ['gateway', 'services/auth', 'services/game', 'services/payments', 'services/realtime'];
    const spelled = [...dirs.map((d) => join(root, d, 'src')), join(root, 'packages', 'service-kit', 'src')]
      .flatMap(sources)
      .flatMap((file) =>
        [
          ...readFileSync(file, 'utf8').matchAll(/(?:code: |_CODE = |new AppError\(\s*)'([A-Z][A-Z_]+)'/g),
        ].map(([, code]) => ({ file, code: code! })),
      );
    expect(spelled.length).toBeGreaterThan(0);
    expect(spelled.filter(({ code }) => !isErrorCode(code))).toEqual([]);
  });
});
