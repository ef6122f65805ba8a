// Each script's reply, decoded by name: the positions are known to its decoder alone.
import { describe, expect, it } from 'vitest';
import { decodeClickBatchReply } from './click-batch.js';
import { decodeJournalStepReply } from './journal-step.js';
import { decodeApplyPurchaseReply } from '../../purchases/purchase.scripts.js';
import { decodeRestoreStateReply } from './restore-state.js';
import { decodeTakeBackReply } from '../../purchases/take-back.scripts.js';
import { decodeUserRecord } from './user-record.js';
import { decodeChangedReply, decodeEvictIdleUsersReply } from '../../players/players.scripts.js';

describe('click batch reply', () => {
  it('names the state after the batch and each click, wins included', () => {
    const win = { round: 3, userId: 'u2', username: 'bo', potCents: 500, clicks: 100, at: 1 };
    const reply = [
      1,
      JSON.stringify([win]),
      4,
      0,
      0,
      'bo',
      'bo',
      // accepted, the 99th, 5 left of which 2 purchased, no reward
      ...[1, 99, 3, 5, 0, 0, 2],
      // accepted, the 100th: wins; unlimited after (-1)
      ...[1, 100, 3, -1, 0, 1, 0],
      ...[2, 0, 4, 0, 0, 0, 0],
      ...[3, 0, 4, 0, 0, 0, 0],
      ...[4, 0, 4, 0, 0, 0, 0],
      ...[5, 0, 4, 0, 0, 0, 0],
      ...[6, 0, 4, 0, 0, 0, 0],
    ];
    expect(decodeClickBatchReply(reply, 7)).toEqual({
      stateMissing: false,
      journalFull: false,
      wins: [win],
      state: { round: 4, globalClicks: 0, potCents: 0, lastClickerName: 'bo', lastWinnerName: 'bo' },
      clicks: [
        { status: 'accepted', ordinal: 99, round: 3, balance: 5, reward: 0, won: false, purchased: 2 },
        { status: 'accepted', ordinal: 100, round: 3, balance: null, reward: 0, won: true, purchased: 0 },
        { status: 'no_clicks', ordinal: 0, round: 4, balance: 0, reward: 0, won: false, purchased: 0 },
        { status: 'rate_limited', ordinal: 0, round: 4, balance: 0, reward: 0, won: false, purchased: 0 },
        { status: 'user_not_loaded', ordinal: 0, round: 4, balance: 0, reward: 0, won: false, purchased: 0 },
        { status: 'deleted_user', ordinal: 0, round: 4, balance: 0, reward: 0, won: false, purchased: 0 },
        {
          status: 'address_rate_limited',
          ordinal: 0,
          round: 4,
          balance: 0,
          reward: 0,
          won: false,
          purchased: 0,
        },
      ],
    });
  });

  it('reads a milestone reward, no wins, and no names as null', () => {
    const reply = [1, '', 1, 10, 250, '', '', ...[1, 10, 1, 109, 100, 0, 0]];
    expect(decodeClickBatchReply(reply, 1)).toMatchObject({
      wins: [],
      state: { round: 1, globalClicks: 10, potCents: 250, lastClickerName: null, lastWinnerName: null },
      clicks: [{ status: 'accepted', ordinal: 10, balance: 109, reward: 100 }],
    });
  });

  it('tells a missing state and a full journal apart, and refuses a reply that does not fit the batch', () => {
    expect(decodeClickBatchReply([-1], 3)).toEqual({ stateMissing: true, journalFull: false });
    expect(decodeClickBatchReply([-2], 3)).toEqual({ stateMissing: false, journalFull: true });
    expect(decodeClickBatchReply([-3], 3)).toEqual({
      expired: true,
      stateMissing: false,
      journalFull: false,
    });
    expect(() => decodeClickBatchReply([1, '', 1, 1, 0, '', '', 1, 1, 1, 1, 0, 0], 1)).toThrow(
      /fields for 1 clicks/,
    );
  });
});

describe('the other replies', () => {
  it('apply purchase', () => {
    expect(decodeApplyPurchaseReply([1, 7])).toEqual({ outcome: 'applied', round: 7 });
    expect(decodeApplyPurchaseReply([0, 6])).toEqual({ outcome: 'applied_before', round: 6 });
    expect(decodeApplyPurchaseReply([-1])).toEqual({ outcome: 'state_missing' });
    expect(decodeApplyPurchaseReply([-2])).toEqual({ outcome: 'user_not_loaded' });
    expect(() => decodeApplyPurchaseReply([9])).toThrow();
  });

  it('take back', () => {
    const figures = { round: 4, roundInPlay: true, clicks: 97, pass: false, potCents: 50 };
    expect(decodeTakeBackReply([1, 4, 1, 97, 0, 50])).toEqual({ outcome: 'taken', ...figures });
    expect(decodeTakeBackReply([0, 4, 1, 97, 0, 50])).toEqual({ outcome: 'taken_before', ...figures });
    expect(decodeTakeBackReply([1, 3, 0, 0, 0, 0])).toMatchObject({ roundInPlay: false, potCents: 0 });
    expect(decodeTakeBackReply([-1])).toEqual({ outcome: 'state_missing' });
    expect(decodeTakeBackReply([-2])).toEqual({ outcome: 'user_not_loaded' });
    expect(() => decodeTakeBackReply([9])).toThrow();
  });

  it('journal step, restore, load and update, eviction', () => {
    expect(decodeJournalStepReply([-1])).toEqual({ lockedByAnother: true });
    expect(decodeJournalStepReply([])).toEqual({ lockedByAnother: false, entries: [] });
    expect(decodeJournalStepReply(['e:1:{}'])).toEqual({ lockedByAnother: false, entries: ['e:1:{}'] });
    expect(decodeRestoreStateReply(1)).toBe(true);
    expect(decodeRestoreStateReply(0)).toBe(false);
    expect(decodeChangedReply(1)).toBe(true);
    expect(decodeChangedReply(0)).toBe(false);
    expect(decodeEvictIdleUsersReply(['17', 4])).toEqual({ cursor: '17', evicted: 4 });
  });
});

describe('user record', () => {
  it('reads the named fields', () => {
    const raw = JSON.stringify({
      loaded: 1,
      version: 3,
      role: 'admin',
      name: 'al',
      granted: 9,
      purchasedRound: 2,
      purchased: 4,
      passRound: 2,
      tokens: 1.5,
      tokensAt: 100,
      loadedAt: 50,
      journalSeq: 8,
      signupGranted: 0,
    });
    expect(decodeUserRecord(raw)).toEqual({
      loaded: true,
      version: 3,
      role: 'admin',
      name: 'al',
      deleted: false,
      granted: 9,
      purchasedRound: 2,
      purchased: 4,
      passRound: 2,
      tokens: 1.5,
      tokensAt: 100,
      loadedAt: 50,
      journalSeq: 8,
      signupGranted: false,
    });
  });

  it('reads a record written before the fields had names', () => {
    const raw = JSON.stringify({
      ok: 1,
      v: 2,
      role: 'standard',
      del: 1,
      g: 5,
      pr: 3,
      p: 1,
      pass: 0,
      tb: 4,
      tt: 9,
    });
    expect(decodeUserRecord(raw)).toEqual({
      loaded: true,
      version: 2,
      role: 'standard',
      deleted: true,
      granted: 5,
      purchasedRound: 3,
      purchased: 1,
      passRound: 0,
      tokens: 4,
      tokensAt: 9,
      // Written before sign-up clicks could wait for a verified email: they were granted.
      signupGranted: true,
    });
  });

  it('has nothing to say about a missing record, and defaults a partial one', () => {
    expect(decodeUserRecord(null)).toBeUndefined();
    expect(decodeUserRecord(JSON.stringify({ version: 4, role: 'standard' }))).toEqual({
      loaded: false,
      version: 4,
      role: 'standard',
      deleted: false,
      granted: 0,
      purchasedRound: 0,
      purchased: 0,
      passRound: 0,
      signupGranted: true,
    });
  });

  it("reads an admin's suspension with its reason, and nothing of it once lifted", () => {
    const suspended = JSON.stringify({ loaded: 1, version: 5, suspended: 1, suspendedReason: 'Bot traffic' });
    expect(decodeUserRecord(suspended)).toMatchObject({ suspended: true, suspendedReason: 'Bot traffic' });
    const lifted = decodeUserRecord(JSON.stringify({ loaded: 1, version: 6 }));
    expect(lifted?.suspended).toBeUndefined();
    expect(lifted?.suspendedReason).toBeUndefined();
  });
});
