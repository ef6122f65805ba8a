import type { OutboxTable } from '@omc/service-kit';
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface UsersTable {
  id: string;
  username: string | null;
  role: string;
  granted_clicks: Generated<number>;
  version: Generated<number>;
  created_at: Generated<Date>;
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  role_changed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** auth's version of the role held (bigint, read as a string); null before the first versioned change. */
  role_version: ColumnType<string | null, number | null | undefined, number | null>;
  renamed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  signup_clicks_granted: Generated<boolean>;
  /** An admin's suspension (auth's reason; null reason and date when not suspended). */
  suspended_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  suspended_reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** auth's security version the suspension state is from (bigint, read as a string). */
  security_version: ColumnType<string, number | undefined, number>;
}

export interface UserRoundsTable {
  user_id: string;
  round: number;
  purchased_clicks: Generated<number>;
  purchased_spent: Generated<number>;
  pass: Generated<boolean>;
}

export interface PurchasesTable {
  purchase_id: string;
  user_id: string;
  round: number;
  pack_id: string;
  clicks: number | null;
  unlimited: boolean;
  pot_share_cents: number;
  applied_at: Generated<Date>;
}

/** What a refunded purchase's take-back removed, once per purchase (migration 0025). */
export interface PurchaseTakebacksTable {
  purchase_id: string;
  user_id: string;
  round: number;
  round_in_play: boolean;
  clicks: number;
  pass: boolean;
  pot_cents: number;
  taken_at: Generated<Date>;
}

export interface RoundsTable {
  round: number;
  clicks: Generated<number>;
  last_click_user_id: string | null;
  closed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface WinnersTable {
  id: Generated<string>;
  round: number;
  user_id: string | null;
  username: string | null;
  pot_cents: number;
  clicks: number;
  won_at: Timestamp;
}

export interface JournalCursorTable {
  epoch: string;
  seq: number;
  /** Fingerprint of the entry at `seq` (null for cursors written before it was kept). */
  last_entry: string | null;
  updated_at: Generated<Date>;
}

/** One row: the Redis state Postgres accepts writes from (the fence). */
export interface StateGenerationTable {
  id: number;
  generation: number;
  epoch: string;
  changed_at: Generated<Date>;
}

export interface Database extends OutboxTable {
  users: UsersTable;
  user_rounds: UserRoundsTable;
  purchases: PurchasesTable;
  purchase_takebacks: PurchaseTakebacksTable;
  rounds: RoundsTable;
  winners: WinnersTable;
  journal_cursor: JournalCursorTable;
  state_generation: StateGenerationTable;
}
