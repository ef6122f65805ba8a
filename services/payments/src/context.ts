// What the routes of payments share, in its own module so app.ts and the routes it registers do not
// import each other.
import type { AccountCheck } from './users/account-check.js';
import type { ClawbacksService } from './clawbacks/clawbacks.service.js';
import type { CheckoutService } from './checkout/checkout.service.js';
import type { Deps } from './deps.js';
import type { PaymentsMetrics } from './metrics.js';
import type { PayoutEmailService } from './payouts/payout-email.service.js';
import type { PayoutsService } from './payouts/payouts.service.js';
import type { ProfileService } from './profile/profile.service.js';
import type { RefundsService } from './refunds/refunds.service.js';
import type { UsersService } from './users/users.service.js';
import type { WebhooksService } from './webhooks/webhooks.service.js';
import type { GameRecord } from './wins/game-record.js';

/** What the routes of this app share: the dependencies and the services built on them. */
export interface PaymentsContext {
  deps: Deps;
  metrics: PaymentsMetrics;
  checkout: CheckoutService;
  payouts: PayoutsService;
  /** New payout emails, pending until confirmed from the account's email. */
  payoutEmail: PayoutEmailService;
  users: UsersService;
  accounts: AccountCheck;
  /** The game's record of won rounds. */
  game: GameRecord;
  profile: ProfileService;
  refunds: RefundsService;
  /** Purchases the provider took the money back for, and what holds a winner's collect. */
  clawbacks: ClawbacksService;
  webhooks: WebhooksService;
}
