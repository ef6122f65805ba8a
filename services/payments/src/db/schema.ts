import type { OutboxTable } from '@omc/service-kit';
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export type PurchaseStatus = 'pending' | 'succeeded' | 'declined' | 'failed';
export type PayoutStatus = 'pending' | 'completed' | 'failed';
export type RefundStatus = 'returning' | 'returned' | 'completed' | 'failed';
/** Why the provider took a purchase's money back. */
export type ClawbackCause = 'settlement_declined' | 'dispute_lost';

export interface Database extends OutboxTable {
  users: {
    id: string;
    username: string | null;
    email: string | null;
    role: string;
    role_changed_at: NullableTimestamp;
    deleted_at: NullableTimestamp;
    updated_at: Timestamp;
  };
  /** Confirmed payout addresses (and those set before confirmation existed). */
  payees: { user_id: string; paypal_email: string; updated_at: Timestamp };
  /** Payout addresses waiting for the confirm link mailed to the account's email (migration 0020). */
  payout_email_changes: {
    id: string;
    user_id: string;
    paypal_email: string;
    token_hash: string | null;
    security_epoch: number;
    created_at: Timestamp;
    expires_at: Timestamp;
    confirmed_at: NullableTimestamp;
    cancelled_at: NullableTimestamp;
  };
  accounts: {
    id: string;
    kind: 'external' | 'internal';
    user_id: string | null;
    /** The sum of the account's ledger entries, kept by a trigger on every entry (migration 0009). */
    balance_cents: Generated<string>;
    created_at: Timestamp;
  };
  ledger_transactions: {
    id: string;
    kind: 'purchase' | 'round_won' | 'payout' | 'refund' | 'clawback' | 'payout_return';
    reference: string;
    created_at: Timestamp;
  };
  ledger_entries: {
    id: Generated<number>;
    transaction_id: string;
    account_id: string;
    amount_cents: number;
    created_at: Timestamp;
  };
  purchases: {
    id: string;
    user_id: string;
    idempotency_key: string;
    nonce_hash: string;
    pack_id: string;
    amount_cents: number;
    status: PurchaseStatus;
    provider_transaction_id: string | null;
    error: string | null;
    attempts: Generated<number>;
    lease_until: NullableTimestamp;
    settlement_status: string | null;
    dispute_status: string | null;
    created_at: Timestamp;
    updated_at: Timestamp;
  };
  payouts: {
    id: string;
    user_id: string;
    kind: 'winnings' | 'house';
    account_id: string;
    amount_cents: number;
    paypal_email: string;
    status: PayoutStatus;
    provider_batch_id: string | null;
    error: string | null;
    attempts: Generated<number>;
    lease_until: NullableTimestamp;
    created_at: Timestamp;
    completed_at: NullableTimestamp;
    /** PayPal's transaction status of the paid payout's item, as last read (migration 0041). */
    item_status: ColumnType<string | null, string | null | undefined, string | null>;
    item_checked_at: NullableTimestamp;
    /** When PayPal gave the money back and the ledger returned it to the account. */
    returned_at: NullableTimestamp;
  };
  round_wins: {
    round: number;
    winner_user_id: string;
    pot_cents: number;
    credited_cents: number;
    event_id: string;
    created_at: Timestamp;
  };
  refunds: {
    purchase_id: string;
    status: RefundStatus;
    kind: 'void' | 'refund' | null;
    provider_refund_id: string | null;
    reason: string;
    admin_user_id: string;
    admin_ip: string | null;
    amount_cents: number;
    clicks_taken: number | null;
    pass_taken: boolean | null;
    pot_cents: number | null;
    house_cents: number | null;
    loss_cents: number | null;
    error: string | null;
    attempts: Generated<number>;
    lease_until: NullableTimestamp;
    created_at: Timestamp;
    updated_at: Timestamp;
    completed_at: NullableTimestamp;
  };
  clawbacks: {
    purchase_id: string;
    cause: ClawbackCause;
    status: 'taking_back' | 'completed';
    amount_cents: number;
    clicks_taken: number | null;
    clicks_spent: number | null;
    pass_taken: boolean | null;
    pot_cents: number | null;
    house_cents: number | null;
    loss_cents: number | null;
    uncovered_cents: number | null;
    error: string | null;
    attempts: Generated<number>;
    created_at: Timestamp;
    updated_at: Timestamp;
    completed_at: NullableTimestamp;
  };
  webhook_events: { id: string; kind: string; subject_id: string | null; received_at: Timestamp };
  money_audit: {
    id: Generated<string>;
    action: string;
    subject_id: string;
    actor_user_id: string | null;
    target_user_id: string | null;
    ip: string | null;
    detail: unknown;
    created_at: Generated<Date>;
  };
}
