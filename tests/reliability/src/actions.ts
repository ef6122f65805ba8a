// What players do, as the web client does it, each outcome recorded for the invariants.
import { randomBytes } from 'node:crypto';
import { setPayoutEmailFromCatcher, verifyEmailsFromCatcher } from '@omc/infra';
import { figures, suite } from './context.js';
import { approvedIfPending, call, waitFor, type Answer, type Player } from './http.js';

/** Braintree's published test nonce for a valid card; the emulator honours it as the provider does. */
export const VALID_NONCE = 'fake-valid-nonce';

export interface ClickRecord {
  user: string;
  status: number;
  globalClicks?: number;
  round?: number;
  won?: boolean;
  at: number;
  /** Retry-After of a 503 (the game busy or briefly unavailable), in seconds. */
  retryAfterS?: number;
}

export interface PurchaseRecord {
  user: string;
  amount: string;
  key: string;
  status: number;
  success?: boolean;
  transactionId?: string;
}

export interface CollectRecord {
  user: string;
  status: number;
  /** The error's code when refused (e.g. EMAIL_NOT_VERIFIED). */
  code?: string;
  transactionId?: string;
  amount?: number;
}

export async function click(player: Player): Promise<ClickRecord> {
  const answer = await call('POST', '/api/game/click', { token: player.token });
  const record: ClickRecord = { user: player.username, status: answer.status, at: Date.now() };
  if (answer.status === 200) {
    record.globalClicks = answer.body.globalClicks;
    record.round = answer.body.round;
    record.won = answer.body.won === true;
    figures.clicksAccepted += 1;
    if (record.won) figures.roundsWon += 1;
  }
  if (answer.status === 503) record.retryAfterS = Number(answer.headers.get('retry-after') ?? 1) || 1;
  return record;
}

/**
 * The web app's "busy" handling (web/src/features/game/busyRetry.ts): a click answered 503 is sent again
 * after Retry-After, doubled per refusal, at most four attempts in all. Every attempt is recorded.
 */
export async function clickAsPlayer(player: Player, records: ClickRecord[]): Promise<ClickRecord> {
  for (let attempt = 1; ; attempt++) {
    const record = await click(player);
    records.push(record);
    if (record.retryAfterS === undefined || attempt === 4) return record;
    await new Promise((resolve) => setTimeout(resolve, record.retryAfterS! * 1000 * 2 ** (attempt - 1)));
  }
}

export function newKey(): string {
  return `rel_${randomBytes(10).toString('hex')}`;
}

export async function checkout(
  player: Player,
  amount = '0.99',
  key = newKey(),
  nonce = VALID_NONCE,
): Promise<PurchaseRecord> {
  const answer = await call('POST', '/api/payments/checkout', {
    token: player.token,
    body: { paymentMethodNonce: nonce, amount, idempotencyKey: key },
    timeoutMs: 20_000,
  });
  const record: PurchaseRecord = { user: player.username, amount, key, status: answer.status };
  if (answer.status === 200) {
    record.success = answer.body?.success === true;
    record.transactionId = answer.body?.transactionId;
    if (record.success) figures.purchases += 1;
  }
  return record;
}

/**
 * Sets the payout email as a player does: asks with the current password (the web app's dialog asks for it
 * when the sign-in is older than a few minutes), then opens the link mailed to the account's email (from
 * the catcher). The confirm's status (200 when set), or the request's when it was refused.
 */
export async function setPayoutEmail(
  player: Player,
  paypalEmail = `${player.username}@paypal.example.com`,
): Promise<number> {
  const { mailUrl, gatewayUrl } = suite();
  const outcome = await setPayoutEmailFromCatcher(player, paypalEmail, {
    mailUrl,
    apiUrl: gatewayUrl,
    currentPassword: player.password,
    timeoutMs: 60_000,
  });
  return outcome.confirmed ?? outcome.requested;
}

/**
 * Verifies the players' addresses as they would, from the link mailed at registration (read from the
 * mail catcher): collecting winnings or the house pot needs a verified email.
 */
export async function verifyEmails(players: Player[]): Promise<void> {
  const { mailUrl, gatewayUrl } = suite();
  await verifyEmailsFromCatcher(
    players.map((p) => p.email),
    { mailUrl, apiUrl: gatewayUrl, timeoutMs: 60_000 },
  );
}

/** The bootstrap admin had no mail at creation: it asks for a link once, unless already verified. */
export async function verifyAdmin(admin: Player): Promise<void> {
  if ((await profile(admin))?.emailVerified === true) return;
  const asked = await call('POST', '/api/user/resend-verification', { token: admin.token });
  if (asked.status >= 300)
    throw new Error(`resend-verification for the admin: ${asked.status} ${asked.text}`);
  await verifyEmails([admin]);
}

export async function collect(player: Player, path = '/api/winners/collect'): Promise<CollectRecord> {
  return collectRecord(player, await call('POST', path, { token: player.token, timeoutMs: 20_000 }));
}

/**
 * The house payout as two admins make it (docs/auth.md): the admin asks with their password, the deputy
 * approves, and the approval's answer carries the payout.
 */
export async function collectHouse(admin: Player): Promise<CollectRecord> {
  const asked = await call('POST', '/api/admin/collect', {
    token: admin.token,
    body: { currentPassword: admin.password },
    timeoutMs: 20_000,
  });
  const answer = await approvedIfPending(asked);
  return collectRecord(admin, answer.body?.payout ? { ...answer, body: answer.body.payout } : answer);
}

function collectRecord(player: Player, answer: Answer): CollectRecord {
  const record: CollectRecord = { user: player.username, status: answer.status };
  if (answer.status === 200) {
    record.transactionId = answer.body.transactionId;
    record.amount = answer.body.amount;
    figures.collects += 1;
  } else if (typeof answer.body?.code === 'string') record.code = answer.body.code;
  return record;
}

export interface GameState {
  globalClicks: number;
  pot: number;
  lastWinner: string | null;
  lastClickUser: string | null;
}

export async function gameState(token?: string): Promise<GameState | undefined> {
  const answer = await call('GET', '/api/game/state', { token });
  return answer.status === 200 ? answer.body.gameState : undefined;
}

export async function profile(player: Player): Promise<any> {
  const answer = await call('GET', '/api/user/profile', { token: player.token });
  return answer.status === 200 ? answer.body : undefined;
}

export async function gameProfile(
  player: Player,
): Promise<{ freeClicks: number; purchasedClicks: number; hasInfiniteClicks: boolean } | undefined> {
  const answer = await call('GET', '/api/game/profile', { token: player.token });
  return answer.status === 200 ? answer.body : undefined;
}

export async function paymentsProfile(
  player: Player,
): Promise<{ potEarned: number; paypalEmail: string | null; adminBalance: number | null } | undefined> {
  const answer = await call('GET', '/api/payments/profile', { token: player.token });
  return answer.status === 200 ? answer.body : undefined;
}

/** Game learns of new users by event; waits until it knows this one (its sign-up grant is visible). */
export async function untilGameKnows(player: Player): Promise<void> {
  await waitFor(
    `game to know ${player.username}`,
    async () => (await gameProfile(player)) !== undefined,
    30_000,
  );
}

export interface Winner {
  _id: string;
  userId: { username: string } | null;
  pot: number;
  createdAt: string;
  round?: number;
}

export async function winners(): Promise<Winner[]> {
  const answer = await call('GET', '/api/winners?limit=200');
  return answer.status === 200 ? answer.body.winners : [];
}

/**
 * Clicks as a privileged player until the round is won by them; returns the winning click. A click the
 * game is too busy for (503) is sent again after Retry-After, as the web app does.
 */
export async function winRound(player: Player, maxClicks = 100_000): Promise<ClickRecord> {
  for (let i = 0; i < maxClicks; i++) {
    const record = await clickAsPlayer(player, []);
    if (record.won) return record;
    if (record.status !== 200 && record.status !== 429)
      throw new Error(`click refused while winning a round: ${record.status}`);
  }
  throw new Error(`no win in ${maxClicks} clicks`);
}

/** Braintree's settlement batch, now: every sale made so far settles (the emulator's nightly batch). */
export async function settleSales(): Promise<void> {
  const settled = await fetch(`${suite().urls.emulators}/__emulator/braintree/settlement-batch`, {
    method: 'POST',
  });
  if (settled.status !== 200) throw new Error(`settlement batch: ${settled.status}`);
}

/**
 * Wins the round as a player who keeps the pot: a standard account with the unlimited pass, bought for it
 * (a staff account's win goes to the house, docs/game.md). The sale settles at once, so the winner's
 * collect is not held for it (docs/payments.md, "Clawbacks and payout holds").
 */
export async function winRoundWithPass(player: Player, purchases: PurchaseRecord[]): Promise<ClickRecord> {
  const pass = await checkout(player, '9.99', newKey());
  purchases.push(pass);
  if (pass.success !== true) throw new Error(`the unlimited pass was not bought: ${pass.status}`);
  await waitFor('the unlimited pass', async () => (await gameProfile(player))?.hasInfiniteClicks === true);
  const won = await winRound(player);
  await settleSales();
  return won;
}
