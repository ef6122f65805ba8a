// A won round moves its pot from the round pot account to the winner's winnings, once per round.
import type { EventEnvelope, SUBJECTS } from '@omc/contracts';
import type { Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/schema.js';
import { ACCOUNTS, winningsAccount } from '../ledger/accounts.js';
import { balance, lockAccount, postMovement } from '../ledger/ledger.repo.js';
import { insertRoundWin } from './wins.repo.js';

export async function applyRoundWon(
  trx: Transaction<Database>,
  event: EventEnvelope<typeof SUBJECTS.roundWon>,
  log: Logger,
): Promise<void> {
  const { round, winnerUserId, potCents } = event.data;
  await lockAccount(trx, ACCOUNTS.roundPot);
  const available = await balance(trx, ACCOUNTS.roundPot);
  // The pot holds what purchases put in it; the ledger never credits money it does not hold.
  const credited = Math.min(potCents, Math.max(available, 0));
  const inserted = await insertRoundWin(trx, {
    round,
    winnerUserId,
    potCents,
    creditedCents: credited,
    eventId: event.id,
  });
  if (!inserted) {
    log.warn({ round, eventId: event.id }, 'round already credited; duplicate win event ignored');
    return;
  }
  if (credited < potCents)
    log.error(
      { round, potCents, available },
      'round pot larger than the ledger pot; credited what the ledger holds',
    );
  await postMovement(trx, {
    kind: 'round_won',
    reference: `round:${round}`,
    entries: [
      { accountId: ACCOUNTS.roundPot, amountCents: -credited },
      { accountId: winningsAccount(winnerUserId), amountCents: credited },
    ],
  });
}
