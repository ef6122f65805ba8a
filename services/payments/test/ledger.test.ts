// The ledger check is only worth running if it catches a broken ledger: here it is shown one.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/ledger/check.js';
import { postMovement } from '../src/ledger/ledger.repo.js';
import { startHarness, type Harness } from './harness.js';

/** The CLI operators run: `pnpm --filter @omc/payments run ledger:check` with DATABASE_URL. */
async function runCli(
  databaseUrl: string,
): Promise<{ code: number; report: { ok: boolean; problems: string[] } }> {
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/ledger/check.cli.ts'],
      { env: { ...process.env, DATABASE_URL: databaseUrl } },
    );
    return { code: 0, report: JSON.parse(stdout) };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, report: JSON.parse(failed.stdout) };
  }
}

describe('ledger check', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  it('refuses to post a movement that does not balance', async () => {
    await expect(
      h.deps.db.transaction().execute((trx) =>
        postMovement(trx, {
          kind: 'purchase',
          reference: 'purchase:x',
          entries: [
            { accountId: 'external:braintree', amountCents: -99 },
            { accountId: 'house', amountCents: 98 },
          ],
        }),
      ),
    ).rejects.toThrow(/does not balance/);
  });

  it('keeps the ledger append-only', async () => {
    await h.deps.db.transaction().execute((trx) =>
      postMovement(trx, {
        kind: 'round_won',
        reference: 'round:999',
        entries: [
          { accountId: 'external:braintree', amountCents: -99 },
          { accountId: 'house', amountCents: 99 },
        ],
      }),
    );
    await expect(sql`delete from ledger_entries`.execute(h.deps.db)).rejects.toThrow(/append-only/);
    await expect(sql`update ledger_transactions set reference = 'x'`.execute(h.deps.db)).rejects.toThrow(
      /append-only/,
    );
  });

  it("keeps each account's balance where the ledger is written, equal to the sum of its entries", async () => {
    const winner = `winnings:${randomUUID()}`;
    const post = (reference: string, entries: { accountId: string; amountCents: number }[]) =>
      h.deps.db.transaction().execute((trx) => postMovement(trx, { kind: 'round_won', reference, entries }));
    await post(`round:${randomUUID()}`, [
      { accountId: 'external:braintree', amountCents: -250 },
      { accountId: winner, amountCents: 250 },
    ]);
    await post(`round:${randomUUID()}`, [
      { accountId: winner, amountCents: -100 },
      { accountId: 'external:paypal', amountCents: 100 },
    ]);
    const stored = await sql<{ id: string; balance_cents: string; ledger_cents: string }>`
      select a.id, a.balance_cents, coalesce(sum(e.amount_cents), 0)::bigint as ledger_cents
      from accounts a left join ledger_entries e on e.account_id = a.id group by a.id, a.balance_cents`.execute(
      h.deps.db,
    );
    expect(stored.rows.length).toBeGreaterThan(2);
    for (const row of stored.rows)
      expect([row.id, Number(row.balance_cents)]).toEqual([row.id, Number(row.ledger_cents)]);
    expect(Number(stored.rows.find((r) => r.id === winner)!.balance_cents)).toBe(150);
    expect((await checkLedger(h.deps.db)).ok).toBe(true);
    // A stored balance that drifted from the ledger is reported by the check.
    await sql`update accounts set balance_cents = balance_cents + 1 where id = ${winner}`.execute(h.deps.db);
    expect((await checkLedger(h.deps.db)).problems).toEqual([
      `account ${winner} stores a balance of 151 but its ledger entries sum to 150`,
    ]);
    await sql`update accounts set balance_cents = balance_cents - 1 where id = ${winner}`.execute(h.deps.db);
  });

  it('reports an unbalanced movement, a negative account and a purchase missing from the ledger', async () => {
    expect((await checkLedger(h.deps.db)).ok).toBe(true);
    const id = randomUUID();
    const account = `winnings:${randomUUID()}`;
    await sql`insert into accounts (id, kind) values (${account}, 'internal'), ('external:braintree', 'external') on conflict do nothing`.execute(
      h.deps.db,
    );
    await sql`insert into ledger_transactions (id, kind, reference) values (${id}, 'payout', ${`payout:${randomUUID()}`})`.execute(
      h.deps.db,
    );
    await sql`insert into ledger_entries (transaction_id, account_id, amount_cents) values (${id}, ${account}, -50), (${id}, 'external:braintree', 40)`.execute(
      h.deps.db,
    );
    await sql`insert into purchases (id, user_id, idempotency_key, nonce_hash, pack_id, amount_cents, status) values (${randomUUID()}, ${randomUUID()}, 'k', 'n', 'clicks100', 99, 'succeeded')`.execute(
      h.deps.db,
    );
    await sql`insert into round_wins (round, winner_user_id, pot_cents, credited_cents, event_id) values (77, ${randomUUID()}, 500, 0, 'e')`.execute(
      h.deps.db,
    );
    const report = await checkLedger(h.deps.db);
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/sums to -10, not 0/),
        expect.stringMatching(/account winnings:.* went negative/),
        expect.stringMatching(/succeeded but not in the ledger/),
        expect.stringMatching(/in the ledger but not completed/),
        expect.stringMatching(/round 77 was won with a pot of 500 but the ledger's pot held 0/),
      ]),
    );
    const cli = await runCli(h.databaseUrl);
    expect(cli.code).toBe(1);
    expect(cli.report.problems).toEqual(report.problems);
  });

  it('reports a completed refund missing from the ledger, and a refund posted short and not completed', async () => {
    const purchase = async () => {
      const id = randomUUID();
      await sql`insert into purchases (id, user_id, idempotency_key, nonce_hash, pack_id, amount_cents, status) values (${id}, ${randomUUID()}, ${`k-${id}`}, 'n', 'clicks100', 99, 'succeeded')`.execute(
        h.deps.db,
      );
      return id;
    };
    const refund = (purchaseId: string, status: string) =>
      sql`insert into refunds (purchase_id, status, reason, admin_user_id, amount_cents) values (${purchaseId}, ${status}, 'test', ${randomUUID()}, 99)`.execute(
        h.deps.db,
      );
    const unposted = await purchase();
    await refund(unposted, 'completed');
    const short = await purchase();
    await refund(short, 'returned');
    await h.deps.db.transaction().execute((trx) =>
      postMovement(trx, {
        kind: 'refund',
        reference: `refund:${short}`,
        entries: [
          { accountId: 'external:braintree', amountCents: 50 },
          { accountId: 'external:refund-losses', amountCents: -50 },
        ],
      }),
    );
    const report = await checkLedger(h.deps.db);
    expect(report.problems).toEqual(
      expect.arrayContaining([
        `purchase ${unposted}: refund completed but not in the ledger`,
        `purchase ${short}: refund in the ledger but not completed`,
        `purchase ${short} refunded 50 in the ledger for 99 at Braintree of its 99, or was never charged`,
      ]),
    );
  });
});
