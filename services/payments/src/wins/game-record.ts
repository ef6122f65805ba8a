// The game's record of won rounds, asked before a win is credited (an event alone moves no money: anyone
// who can publish on the bus could name themselves the winner) and on a schedule for wins whose event was
// lost. No answer means nothing is credited now, never a guess: the event is retried, the pass runs again.
import { INTERNAL, type InternalWin as Win } from '@omc/contracts';
import { outcomeReason, type InternalClient } from '@omc/service-kit';

export class GameRecord {
  constructor(private readonly internal: InternalClient) {}

  /** The round's win as the game recorded it; undefined when the game has none (a forged event). */
  async win(round: number): Promise<Win | undefined> {
    const asked = await this.internal.call(INTERNAL.win, { params: { round } });
    if (asked.kind === 'answered') return asked.data;
    if (asked.kind === 'refused' && asked.status === 404) return undefined;
    throw new Error(`the game did not say round ${round}'s win: ${outcomeReason(asked)}`);
  }

  /** Every win the game recorded since `since`, by round. */
  async winsSince(since: Date): Promise<Win[]> {
    const wins: Win[] = [];
    let afterRound = 0;
    for (;;) {
      const query = { since: since.toISOString(), afterRound: String(afterRound), limit: '500' };
      const asked = await this.internal.call(INTERNAL.wins, { query });
      if (asked.kind !== 'answered')
        throw new Error(`the game did not list its wins: ${outcomeReason(asked)}`);
      const page = asked.data.wins;
      wins.push(...page);
      if (page.length < 500) return wins;
      afterRound = page[page.length - 1]!.round;
    }
  }
}
