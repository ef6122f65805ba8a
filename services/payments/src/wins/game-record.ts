// The game's record of won rounds, asked before a win is credited (an event alone moves no money: anyone
// who can publish on the bus could name themselves the winner) and on a schedule for wins whose event was
// lost. No answer means nothing is credited now, never a guess: the event is retried, the pass runs again.
import {
  INTERNAL_WINS_PATH,
  InternalWin,
  InternalWinsResponse,
  type InternalWin as Win,
} from '@omc/contracts';
import type { ServiceCredentials } from '@omc/service-kit';

export interface GameRecordOptions {
  gameUrl: string;
  timeoutMs: number;
  credentials: ServiceCredentials;
}

export class GameRecord {
  constructor(private readonly options: GameRecordOptions) {}

  private async get(path: string): Promise<Response> {
    const response = await fetch(`${this.options.gameUrl}${path}`, {
      headers: { accept: 'application/json', ...this.options.credentials.headersFor('game') },
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    if (response.status >= 500 || (!response.ok && response.status !== 404)) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`the game answered ${response.status} for ${path}`);
    }
    return response;
  }

  /** The round's win as the game recorded it; undefined when the game has none (a forged event). */
  async win(round: number): Promise<Win | undefined> {
    const response = await this.get(`${INTERNAL_WINS_PATH}/${round}`);
    if (response.status === 404) {
      await response.body?.cancel().catch(() => undefined);
      return undefined;
    }
    return InternalWin.parse(await response.json());
  }

  /** Every win the game recorded since `since`, by round. */
  async winsSince(since: Date): Promise<Win[]> {
    const wins: Win[] = [];
    let afterRound = 0;
    for (;;) {
      const query = new URLSearchParams({
        since: since.toISOString(),
        afterRound: String(afterRound),
        limit: '500',
      });
      const response = await this.get(`${INTERNAL_WINS_PATH}?${query}`);
      const page = InternalWinsResponse.parse(await response.json()).wins;
      wins.push(...page);
      if (page.length < 500) return wins;
      afterRound = page[page.length - 1]!.round;
    }
  }
}
