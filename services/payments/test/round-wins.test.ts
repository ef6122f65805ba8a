// Money never moves on an event alone. Anyone who can publish on the bus could send game.round.won.v1
// naming themselves: payments credits a win only as the game's record of that round says, and credits the
// wins the game recorded whose event never arrived (reconciliation), each round once.
import { SUBJECTS, type InternalWin } from '@omc/contracts';
import { eventually, internalCallHeaders } from '@omc/testkit';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNTS, winningsAccount } from '../src/ledger/accounts.js';
import { balance } from '../src/ledger/ledger.repo.js';
import { winPassBoundMs } from '../src/wins/wins.service.js';
import { newUserId, startHarness, type Harness } from './harness.js';

describe("round wins against the game's record", () => {
  let h: Harness;
  let round = 1000;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  afterEach(async () => h.assertLedgerBalances());

  /** A buyer puts a 9.99 pass in the pot; returns the pot share in cents. */
  async function fillPot(): Promise<number> {
    const buyer = await h.token({ sub: newUserId() });
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/payments/checkout',
      headers: { authorization: `Bearer ${buyer}` },
      payload: { paymentMethodNonce: 'fake-valid-nonce', amount: '9.99', idempotencyKey: randomUUID() },
    });
    expect(response.json().success).toBe(true);
    return Math.floor((999 * 50) / 100);
  }

  const win = (winnerUserId: string, potCents: number, at = new Date()): InternalWin => ({
    round: ++round,
    winnerUserId,
    winnerUsername: 'winner',
    potCents,
    clicks: 100,
    wonAt: at.toISOString(),
  });

  const handled = (eventId: string) =>
    eventually(
      async () =>
        (await h.deps.db
          .selectFrom('processed_events')
          .select('id')
          .where('id', '=', eventId)
          .executeTakeFirst()) !== undefined,
      'the event handled',
    );

  describe('staff never win the pot', () => {
    const wonBy = async (winnerUserId: string, at?: Date) => {
      const pot = await fillPot();
      const houseBefore = await balance(h.deps.db, ACCOUNTS.house);
      const recorded = win(winnerUserId, pot, at);
      h.game.wins.set(recorded.round, recorded);
      await handled((await h.publish(SUBJECTS.roundWon, recorded)).id);
      return {
        pot,
        house: (await balance(h.deps.db, ACCOUNTS.house)) - houseBefore,
        winnings: await balance(h.deps.db, winningsAccount(winnerUserId)),
      };
    };
    const registered = async (role: 'standard' | 'superuser' | 'admin') => {
      const userId = newUserId();
      await h.publish(SUBJECTS.userRegistered, {
        userId,
        username: `staff_${role}`,
        email: `${userId}@example.com`,
        role,
        preferredLanguage: 'es',
      });
      await eventually(
        async () =>
          (await h.deps.db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst()) !==
          undefined,
        'payments to know the user',
      );
      return userId;
    };

    it.each(['superuser', 'admin'] as const)(
      'a round won by a %s credits its pot to the house, not to them',
      async (role) => {
        const staff = await registered(role);
        const { pot, house, winnings } = await wonBy(staff);
        expect(winnings).toBe(0);
        expect(house).toBe(pot);
      },
    );

    it("a winner whose role changed around the winning click is treated as staff; a player's win is theirs", async () => {
      const demoted = await registered('superuser');
      // Demoted just after the winning click: the role at the click is uncertain, the house takes the pot.
      const at = new Date();
      await h.publish(SUBJECTS.userRoleChanged, {
        userId: demoted,
        role: 'standard',
        previousRole: 'superuser',
      });
      await eventually(
        async () =>
          (
            await h.deps.db
              .selectFrom('users')
              .select('role')
              .where('id', '=', demoted)
              .executeTakeFirstOrThrow()
          ).role === 'standard',
        'the demotion applied',
      );
      const late = await wonBy(demoted, at);
      expect(late.winnings).toBe(0);
      expect(late.house).toBe(late.pot);

      const player = await registered('standard');
      const fair = await wonBy(player);
      expect(fair.winnings).toBe(fair.pot);
      expect(fair.house).toBe(0);
    });
  });

  it('credits nothing for a forged round won event (a round the game has no win for)', async () => {
    await fillPot();
    const potBefore = await balance(h.deps.db, ACCOUNTS.roundPot);
    const thief = newUserId();
    const forged = await h.publish(SUBJECTS.roundWon, win(thief, potBefore));
    await handled(forged.id);
    expect(await balance(h.deps.db, winningsAccount(thief))).toBe(0);
    expect(await balance(h.deps.db, ACCOUNTS.roundPot)).toBe(potBefore);
    const credited = await h.deps.db
      .selectFrom('round_wins')
      .select('round')
      .where('round', '=', round)
      .execute();
    expect(credited).toEqual([]);
  });

  it("credits the game's record, not the event's figures, for a round that was won", async () => {
    const pot = await fillPot();
    const winner = newUserId();
    const thief = newUserId();
    const recorded = win(winner, pot);
    h.game.wins.set(recorded.round, recorded);
    // The same round, published by someone else, naming another winner and a larger pot.
    const forged = await h.publish(SUBJECTS.roundWon, {
      ...recorded,
      winnerUserId: thief,
      potCents: pot * 3,
    });
    await handled(forged.id);
    expect(await balance(h.deps.db, winningsAccount(thief))).toBe(0);
    expect(await balance(h.deps.db, winningsAccount(winner))).toBe(pot);
  });

  it('credits nothing while the game cannot be asked, and credits the win once it answers', async () => {
    const pot = await fillPot();
    const winner = newUserId();
    const recorded = win(winner, pot);
    h.game.wins.set(recorded.round, recorded);
    h.game.down = true;
    try {
      await h.publish(SUBJECTS.roundWon, recorded);
      await new Promise((r) => setTimeout(r, 1500));
      expect(await balance(h.deps.db, winningsAccount(winner))).toBe(0);
    } finally {
      h.game.down = false;
    }
    await eventually(
      async () => (await balance(h.deps.db, winningsAccount(winner))) === pot,
      'credited once the game answers',
    );
  });

  it('credits a recorded win whose event never arrived, once, at the next reconciliation pass', async () => {
    const pot = await fillPot();
    const winner = newUserId();
    // The game recorded the win; its event was lost (nothing is published).
    const recorded = win(winner, pot);
    h.game.wins.set(recorded.round, recorded);
    // A win older than the look-back is not asked for; one inside it is.
    const ancient = win(newUserId(), 1, new Date(Date.now() - 400 * 24 * 3600 * 1000));
    h.game.wins.set(ancient.round, ancient);
    expect(await h.app.payments.reconcileWins()).toBeGreaterThanOrEqual(1);
    expect(await balance(h.deps.db, winningsAccount(winner))).toBe(pot);
    expect(await balance(h.deps.db, winningsAccount(ancient.winnerUserId))).toBe(0);
    // Again, and then the late event itself: nothing more.
    expect(await h.app.payments.reconcileWins()).toBe(0);
    const late = await h.publish(SUBJECTS.roundWon, recorded);
    await handled(late.id);
    expect(await balance(h.deps.db, winningsAccount(winner))).toBe(pot);
  });

  it('serves its completed purchases to the game, as their events said, page by page', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    await fillPot();
    await fillPot();
    const headers = internalCallHeaders('game', 'payments');
    const first = await h.app.inject({
      headers,
      url: `/internal/purchases/completed?since=${encodeURIComponent(since)}&limit=1`,
    });
    expect(first.statusCode).toBe(200);
    const [one] = first.json().purchases;
    expect(one).toMatchObject({ packId: 'unlimited', unlimited: true, clicks: null, amountCents: 999 });
    expect(one.potShareCents + one.houseShareCents).toBe(999);
    const next = await h.app.inject({
      headers,
      url: `/internal/purchases/completed?since=${encodeURIComponent(since)}&afterAt=${encodeURIComponent(one.completedAt)}&afterId=${one.purchaseId}`,
    });
    const rest = next.json().purchases as { purchaseId: string }[];
    expect(rest.length).toBeGreaterThanOrEqual(1);
    expect(rest.map((p) => p.purchaseId)).not.toContain(one.purchaseId);
    const half = await h.app.inject({
      headers,
      url: `/internal/purchases/completed?since=${encodeURIComponent(since)}&afterAt=${encodeURIComponent(one.completedAt)}`,
    });
    expect(half.statusCode).toBe(400);
    expect(half.json().message).toMatch(/afterAt and afterId/);
  });
});

describe('a win held while payments was down', () => {
  let h: Harness | undefined;
  afterAll(async () => h?.close());

  it('is credited by the pass at start, not an interval later (docs/payments.md: the win credit bound)', async () => {
    const winner = newUserId();
    // The game recorded round 7 while payments was down, and its event is not coming (held by the
    // instance that died until its ack wait ends, or lost): the timer's interval is long on purpose.
    const recorded: InternalWin = {
      round: 7,
      winnerUserId: winner,
      winnerUsername: 'winner',
      potCents: 0,
      clicks: 100,
      wonAt: new Date().toISOString(),
    };
    h = await startHarness(
      { EVENT_RECONCILE_INTERVAL_MS: '600000' },
      { beforeStart: (game) => game.wins.set(recorded.round, recorded) },
    );
    const db = h.deps.db;
    await eventually(
      async () =>
        (await db.selectFrom('round_wins').select('round').where('round', '=', 7).executeTakeFirst()) !==
        undefined,
      'round 7 credited by the pass at start',
      winPassBoundMs(h.deps.config),
    );
  });
});
