// The shapes the Redis scripts write into the journal and return for wins.
import type { PurchaseRecord, TakeBackRecord, WinRecord } from '../db/records.js';

export type { PurchaseRecord, TakeBackRecord, WinRecord } from '../db/records.js';

export interface JournalSegment {
  r: number;
  pos: number;
  n: number;
  last?: string;
  /** userId -> [purchased spent, granted spent] */
  spends: Record<string, [number, number]> | [];
  /** userId -> granted reward */
  rewards: Record<string, number> | [];
  win?: WinRecord;
}

export interface JournalEntry {
  epoch: string;
  seq: number;
  /** "epoch:seq:" as the entry starts in Redis. */
  prefix: string;
  segs?: JournalSegment[];
  purchase?: PurchaseRecord;
  takeback?: TakeBackRecord;
  /** A user's sign-up clicks, granted once their email was verified. */
  grant?: { userId: string; clicks: number };
}

export function parseJournalEntry(raw: string): JournalEntry {
  const first = raw.indexOf(':');
  const second = raw.indexOf(':', first + 1);
  const epoch = raw.slice(0, first);
  const seq = Number(raw.slice(first + 1, second));
  const body = JSON.parse(raw.slice(second + 1)) as Pick<
    JournalEntry,
    'segs' | 'purchase' | 'takeback' | 'grant'
  >;
  return { epoch, seq, prefix: raw.slice(0, second + 1), ...body };
}

/** cjson writes an empty Lua table as {} or []; both mean "none". */
export function entriesOf<T>(value: Record<string, T> | [] | undefined): [string, T][] {
  return value && !Array.isArray(value) ? Object.entries(value) : [];
}
