import { ConfigError } from '@omc/service-kit';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseMilestones } from './config.js';

const base = {
  DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/game',
  REDIS_URL: 'redis://127.0.0.1:6379',
  NATS_URL: 'nats://127.0.0.1:4222',
  JWT_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\\nMCowBQYDK2VwAyEA\\n-----END PUBLIC KEY-----',
  SERVICE_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\\nMC4CAQAwBQYDK2VwBCIEIA\\n-----END PRIVATE KEY-----',
  AUTH_SERVICE_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\\nMCowBQYDK2VwAyEA\\n-----END PUBLIC KEY-----',
  PAYMENTS_SERVICE_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\\nMCowBQYDK2VwAyEA\\n-----END PUBLIC KEY-----',
};

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig({ ...base, ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('game configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig(base);
    expect(config).toMatchObject({
      PORT: 3002,
      ROUND_TARGET: 1_000_000,
      SIGNUP_FREE_CLICKS: 10,
      CLICK_RATE_PER_USER: 20,
      WINNERS_READ_TIMEOUT_MS: 1000,
      EVENT_ACK_WAIT_MS: 30_000,
      WIN_CONFIRM_TIMEOUT_MS: 1000,
    });
    expect(config.MILESTONES).toEqual([
      { at: 10, freeClicks: 100 },
      { at: 50, freeClicks: 500 },
    ]);
  });

  it('names each bad variable', () => {
    expect(problems({ ROUND_TARGET: 'lots' })).toEqual([expect.stringMatching(/^ROUND_TARGET:/)]);
    expect(problems({ WIN_CONFIRM_TIMEOUT_MS: 'soon' })).toEqual([
      expect.stringMatching(/^WIN_CONFIRM_TIMEOUT_MS:/),
    ]);
    expect(problems({ WINNERS_READ_TIMEOUT_MS: '0' })).toEqual([
      expect.stringMatching(/^WINNERS_READ_TIMEOUT_MS:/),
    ]);
    expect(problems({ EVENT_ACK_WAIT_MS: '10' })).toEqual([expect.stringMatching(/^EVENT_ACK_WAIT_MS:/)]);
    expect(problems({ MILESTONES: '10=100' })).toEqual([
      expect.stringMatching(/^MILESTONES: "10=100" is not "clicks:reward"/),
    ]);
    expect(problems({ ROUND_TARGET: '40' })).toEqual([
      expect.stringMatching(/^MILESTONES: milestone 50 must be below ROUND_TARGET/),
    ]);
    expect(problems({ CLICK_RATE_PER_USER: '0', SIGNUP_FREE_CLICKS: '-1' })).toEqual([
      expect.stringMatching(/^SIGNUP_FREE_CLICKS:/),
      expect.stringMatching(/^CLICK_RATE_PER_USER:/),
    ]);
  });

  it('reads milestones in any order and refuses duplicates', () => {
    expect(parseMilestones('50:500, 10:100')).toEqual([
      { at: 10, freeClicks: 100 },
      { at: 50, freeClicks: 500 },
    ]);
    expect(parseMilestones('')).toEqual([]);
    expect(parseMilestones('10:1,10:2')).toBe('milestone 10 is given twice');
    expect(parseMilestones('0:5')).toMatch(/at least 1/);
  });
});
