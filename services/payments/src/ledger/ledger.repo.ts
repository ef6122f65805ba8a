// The only code that writes the ledger. A movement is one ledger transaction whose entries sum to zero;
// its reference is unique, so the same purchase, win or payout can never be posted twice.
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { isExternal } from './accounts.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface Movement {
  kind: 'purchase' | 'round_won' | 'payout' | 'refund' | 'clawback' | 'payout_return';
  reference: string;
  entries: { accountId: string; amountCents: number }[];
}

export async function ensureAccount(db: Db, accountId: string, userId: string | null = null): Promise<void> {
  await db
    .insertInto('accounts')
    .values({ id: accountId, kind: isExternal(accountId) ? 'external' : 'internal', user_id: userId })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** Serialises movements on one account until the surrounding transaction ends. */
export async function lockAccount(
  trx: Transaction<Database>,
  accountId: string,
  userId: string | null = null,
): Promise<void> {
  await ensureAccount(trx, accountId, userId);
  await trx
    .selectFrom('accounts')
    .select('id')
    .where('id', '=', accountId)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

/**
 * Posts a movement. Returns false (and writes nothing) when one with this reference exists. Throws when
 * the entries do not sum to zero: a bug must never reach the table.
 */
export async function postMovement(trx: Transaction<Database>, movement: Movement): Promise<boolean> {
  const entries = movement.entries.filter((e) => e.amountCents !== 0);
  for (const e of entries)
    if (!Number.isSafeInteger(e.amountCents))
      throw new Error(`ledger amounts are integer cents, got ${e.amountCents}`);
  const sum = entries.reduce((total, e) => total + e.amountCents, 0);
  if (sum !== 0) throw new Error(`ledger movement ${movement.reference} does not balance (sum ${sum})`);
  if (entries.length === 0) return false;
  const id = randomUUID();
  const inserted = await trx
    .insertInto('ledger_transactions')
    .values({ id, kind: movement.kind, reference: movement.reference })
    .onConflict((oc) => oc.column('reference').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) return false;
  for (const e of entries)
    await ensureAccount(
      trx,
      e.accountId,
      e.accountId.startsWith('winnings:') ? e.accountId.slice('winnings:'.length) : null,
    );
  await trx
    .insertInto('ledger_entries')
    .values(
      entries.map((e) => ({ transaction_id: id, account_id: e.accountId, amount_cents: e.amountCents })),
    )
    .execute();
  return true;
}

/**
 * An account's balance: the sum of its ledger entries, kept on the account row by the trigger of
 * migration 0009 in the entry's own transaction (one row read, not a scan of its history). Within a
 * transaction that holds the account's lock it is the balance no other movement can change meanwhile.
 */
export async function balance(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select('balance_cents')
    .where('id', '=', accountId)
    .executeTakeFirst();
  return Number(row?.balance_cents ?? 0);
}
