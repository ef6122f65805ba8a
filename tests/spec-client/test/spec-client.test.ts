// docs/client-contract.md's client, call for call and event for event, against the whole system through the gateway:
// the flows of section 4 in the order a player meets them, asserting every field section 7 says the
// client reads, with its type. Sockets are opened with no token, as the original client opens them.
import { mailedLink, mailsTo, tokenOf, verifyEmailFromCatcher } from '@omc/infra';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import {
  describedApi,
  formatPot,
  gatewayUrl,
  mailedToken,
  openLivePage,
  settleSales,
  SpecBrowser,
  until,
  type Answer,
  type LivePage,
} from '../src/spec-client.js';

const stamp = Date.now().toString(36).slice(-5);
const PLAYER = { username: `ana_${stamp}`, email: `ana_${stamp}@example.com`, password: 'secret-ana-1' };
const SECOND = { username: `bea_${stamp}`, email: `bea_${stamp}@example.com`, password: 'secret-bea-1' };
const VALID_NONCE = 'fake-valid-nonce';
const DECLINED_NONCE = 'fake-processor-declined-visa-nonce';
const TARGET = 100;

/** Every error the original client may read carries the same text under message, error and msg. */
function expectError(answer: Answer, status?: number): string {
  if (status) expect(answer.status).toBe(status);
  else expect(answer.status).toBeGreaterThanOrEqual(400);
  expect(answer.status).toBeLessThan(500);
  expect(answer.contentType).toContain('application/json');
  const { message, error, msg } = answer.body ?? {};
  expect(typeof message).toBe('string');
  expect(message.length).toBeGreaterThan(0);
  expect(error).toBe(message);
  expect(msg).toBe(message);
  return message;
}

/** Verifies the address as its owner does: the link in the newest verification mail, from the catcher. */
function verifyFromInbox(email: string): Promise<void> {
  const { gatewayUrl, mailUrl } = inject('specSystem');
  return verifyEmailFromCatcher(email, { mailUrl, apiUrl: gatewayUrl });
}

/**
 * Confirms a payout email as its owner does: the newest confirm link mailed to the account's email (from
 * the catcher), opened (the web page posts its token). Returns the confirm answer's status.
 */
async function confirmPayoutFromInbox(accountEmail: string): Promise<number> {
  const { gatewayUrl, mailUrl } = inject('specSystem');
  const link = await mailedLink(mailUrl, accountEmail, 'confirm-payout-email');
  const answer = await fetch(`${gatewayUrl}/api/winners/confirm-payout-email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: tokenOf(link) }),
  });
  return answer.status;
}

/** The game state as the client contract has it: the page replaces its whole state with this and formats pot. */
function expectGameState(state: any): void {
  expect(typeof state.globalClicks).toBe('number');
  expect(typeof state.pot).toBe('number');
  expect(state.lastWinner === null || typeof state.lastWinner === 'string').toBe(true);
  expect(state.lastClickUser === null || typeof state.lastClickUser === 'string').toBe(true);
  expect(() => formatPot(state)).not.toThrow();
}

function expectProfile(body: any): void {
  expect(typeof body.username).toBe('string');
  expect(typeof body.email).toBe('string');
  expect(['standard', 'superuser', 'admin']).toContain(body.role);
  expect(body.adminBalance === null || typeof body.adminBalance === 'number').toBe(true);
  expect(body.paypalEmail === null || typeof body.paypalEmail === 'string').toBe(true);
  expect(typeof body.freeClicks).toBe('number');
  expect(typeof body.hasInfiniteClicks).toBe('boolean');
  expect(typeof body.potEarned).toBe('number');
}

const pages: LivePage[] = [];
const page = () => {
  const opened = openLivePage();
  pages.push(opened);
  return opened;
};

const player = new SpecBrowser();
const admin = new SpecBrowser();
let watcher: LivePage;

/** Clicks until the game knows the player (its registration event arrives a moment after the answer). */
async function firstClick(browser: SpecBrowser): Promise<Answer> {
  return until(async () => {
    const answer = await browser.click();
    return answer.status === 409 ? undefined : answer;
  }, 'the game to know the player');
}

/** Clicks as `browser` until the round's counter stands at `count`. */
async function clickUntil(browser: SpecBrowser, count: number): Promise<void> {
  for (;;) {
    const state = (await browser.gameState()).body.gameState;
    if (state.globalClicks >= count) return;
    const answer = await browser.click();
    expect(answer.status).toBe(200);
  }
}

beforeAll(async () => {
  const { admin: credentials } = inject('specSystem');
  expect((await admin.login(credentials.username, credentials.password)).status).toBe(200);
  watcher = page();
  await until(() => watcher.socket.connected, 'the watching page to connect');
});

afterAll(() => {
  for (const opened of pages) opened.close();
});

describe("SPEC's client against the whole system", () => {
  it('welcome: the web app answers on every route of section 2, unknown paths included', async () => {
    for (const path of ['/', '/game', '/winners', '/profile', '/admin/roles', '/no/such/page']) {
      const response = await fetch(`${gatewayUrl()}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toContain('text/html');
    }
  });

  it('guest: the whole game state over HTTP and the socket, pot a number; clicking needs a token', async () => {
    const guest = new SpecBrowser();
    const state = await guest.gameState();
    expect(state.status).toBe(200);
    expectGameState(state.body.gameState);
    const list = await guest.winners();
    expect(Array.isArray(list.body.winners)).toBe(true);
    // The current state arrives on connect, and the count as a number.
    await until(
      () => watcher.states.length > 0 && watcher.counts.length > 0,
      'the state and count on connect',
    );
    expectGameState(watcher.states[0]);
    expect(typeof watcher.counts[0]).toBe('number');
    expectError(await guest.click(), 401);
    expectError(await guest.profile(), 401);
    // The client token is asked with the bearer optional.
    const token = await guest.clientToken();
    expect(token.status).toBe(200);
    expect(typeof token.body.clientToken).toBe('string');
  });

  it('a listener attached late still hears the number of connected users', async () => {
    const late = openLivePage(false);
    pages.push(late);
    await until(() => late.socket.connected, 'the late page to connect');
    await new Promise((r) => setTimeout(r, 300));
    const heard: unknown[] = [];
    late.socket.on('userCountUpdate', (count) => heard.push(count));
    await until(() => heard.length > 0, 'a count for the late listener', 5000);
    expect(typeof heard[0]).toBe('number');
    expect(heard[0] as number).toBeGreaterThanOrEqual(1);
  });

  it('register: a refused form names the problem under every key; success gives token and message', async () => {
    expectError(await player.register(PLAYER.username, 'not-an-email', PLAYER.password), 400);
    expectError(await player.register(PLAYER.username, PLAYER.email, '123'), 400);
    const answer = await player.register(PLAYER.username, PLAYER.email, PLAYER.password);
    expect(answer.status).toBeLessThan(300);
    expect(typeof answer.body.token).toBe('string');
    expect(typeof answer.body.message).toBe('string');
    const now = Date.now() / 1000;
    expect(player.tokenExpiry()).toBeGreaterThan(now);
    expect(player.tokenExpiry()).toBeLessThan(now + 24 * 3600);
    // The same user again: the server's message is shown.
    expectError(await new SpecBrowser().register(PLAYER.username, PLAYER.email, PLAYER.password));
    const profile = await player.profile();
    expect(profile.status).toBe(200);
    expectProfile(profile.body);
    expect(profile.body).toMatchObject({ username: PLAYER.username, email: PLAYER.email, role: 'standard' });
  });

  it('login and refresh: token, preferredLanguage and message; refusals carry the message', async () => {
    expectError(await new SpecBrowser().login(PLAYER.username, 'wrong-password'), 401);
    expectError(await new SpecBrowser().login('', ''), 400);
    const answer = await player.login(PLAYER.email, PLAYER.password);
    expect(answer.status).toBe(200);
    expect(answer.contentType).toContain('application/json');
    expect(typeof answer.body.token).toBe('string');
    expect(typeof answer.body.preferredLanguage).toBe('string');
    expect(typeof answer.body.message).toBe('string');
    const refreshed = await player.refresh();
    expect(refreshed.status).toBe(200);
    expect(typeof refreshed.body.token).toBe('string');
    expect((await player.changeLanguage('en')).status).toBe(200);
    expect((await player.login(PLAYER.username, PLAYER.password)).body.preferredLanguage).toBe('en');
  });

  it('click: the answer, the profile after it, and the live update a second page hears with the pot', async () => {
    const before = (await player.profile()).body.freeClicks;
    const answer = await firstClick(player);
    expect(answer.status).toBe(200);
    const ordinal = answer.body.globalClicks;
    expect(typeof ordinal).toBe('number');
    expect((await player.profile()).body.freeClicks).toBe(before - 1);
    const second = page();
    await until(
      () => watcher.states.some((s) => s.globalClicks >= ordinal),
      'the click on the watching page',
    );
    const seen = watcher.states.find((s) => s.globalClicks >= ordinal);
    expectGameState(seen);
    expect(seen.lastClickUser).toBe(PLAYER.username);
    await until(() => second.states.length > 0, 'the current state on the second page');
    expectGameState(second.states.at(-1));
  });

  it('buy: the client token, a valid nonce charges and credits, a declined one says why', async () => {
    const token = await player.clientToken();
    expect(typeof token.body.clientToken).toBe('string');
    const before = (await player.profile()).body.freeClicks;
    const potBefore = (await player.gameState()).body.gameState.pot;
    const paid = await player.checkout(VALID_NONCE, '0.99');
    expect(paid.status).toBe(200);
    expect(paid.body.success).toBe(true);
    expect(typeof paid.body.transactionId).toBe('string');
    await until(async () => (await player.profile()).body.freeClicks === before + 100, '100 clicks credited');
    await until(async () => (await player.gameState()).body.gameState.pot > potBefore, 'the pot to grow');
    await until(() => watcher.states.at(-1)?.pot > potBefore, 'the pot on the watching page');

    const declined = await player.checkout(DECLINED_NONCE, '0.99');
    expect(declined.body.success).toBe(false);
    expect(typeof declined.body.error).toBe('string');
    expect(declined.body.message).toBe(declined.body.error);
    expect(declined.body.msg).toBe(declined.body.error);
    expectError(await player.checkout(VALID_NONCE, '1.00'), 400);
    expect((await player.profile()).body.freeClicks).toBe(before + 100);
  });

  it('milestone: the 10th click of the round gives its clicker 100 free clicks', async () => {
    const start = (await player.gameState()).body.gameState.globalClicks;
    expect(start).toBeLessThan(10);
    const before = (await player.profile()).body.freeClicks;
    await clickUntil(player, 10);
    expect((await player.profile()).body.freeClicks).toBe(before - (10 - start) + 100);
  });

  it('winner: the click reaching the target wins; every page hears {username, pot} and the reset', async () => {
    const pot = (await player.gameState()).body.gameState.pot;
    expect(pot).toBeGreaterThan(0);
    await clickUntil(admin, TARGET - 1);
    expect((await player.click()).status).toBe(200);
    await until(() => watcher.winners.length > 0, 'the winner alert');
    expect(watcher.winners[0]).toEqual({ username: PLAYER.username, pot });
    await until(() => watcher.states.at(-1)?.lastWinner === PLAYER.username, 'the new round on the page');
    const state = watcher.states.at(-1);
    expectGameState(state);
    expect(state.globalClicks).toBe(0);
    expect(state.pot).toBe(0);
  });

  it('winners page: _id, userId.username, pot and createdAt of each winner', async () => {
    const list = await player.winners();
    expect(list.status).toBe(200);
    const [latest] = list.body.winners;
    expect(typeof latest._id).toBe('string');
    expect(latest.userId).toEqual({ username: PLAYER.username });
    expect(typeof latest.pot).toBe('number');
    expect(watcher.winners[0].pot).toBe(latest.pot);
    expect(Number.isNaN(Date.parse(latest.createdAt))).toBe(false);
    // Payments credits the winnings when it consumes the game's round won event, a moment after the win.
    await until(
      async () => (await player.profile()).body.potEarned === latest.pot,
      'the winnings in the profile',
    );
  });

  it('payout email and collect: refusals say why under every key; a collect pays and zeroes the winnings', async () => {
    expectError(await player.collect());
    expectError(await player.setPaymentMethod('not an email'), 400);
    const payoutEmail = `${PLAYER.username}@paypal.example.com`;
    const asked = await player.setPaymentMethod(payoutEmail);
    expect(asked.status).toBe(200);
    // The original client's 200 with a message: a confirmation went to the account's email; nothing changed yet.
    expect(asked.body.message).toMatch(/check your email/i);
    expect((await player.profile()).body.paypalEmail).toBeNull();
    // Money leaves only for a verified account email: refused, nothing moved, until the mailed link is used.
    const unverified = await player.collect();
    expect(expectError(unverified, 403)).toMatch(/verify your account email/i);
    expect(unverified.body.code).toBe('EMAIL_NOT_VERIFIED');
    expect((await player.profile()).body.potEarned).toBeGreaterThan(0);
    await verifyFromInbox(PLAYER.email);
    expect((await player.profile()).body.emailVerified).toBe(true);
    // And only to a confirmed payout email: refused under every key until the link mailed for it is used.
    expect(expectError(await player.collect(), 409)).toMatch(/confirm/i);
    // Both payout addresses are told: here the new one (there was none before).
    await until(
      async () => (await mailsTo(inject('specSystem').mailUrl, payoutEmail)).length > 0,
      'the notice to the new payout address',
    );
    expect(await confirmPayoutFromInbox(PLAYER.email)).toBe(200);
    expect((await player.profile()).body.paypalEmail).toBe(payoutEmail);
    // The winner bought clicks this round: held until Braintree settles that sale, then paid.
    const held = await player.collect();
    expect(expectError(held, 409)).toMatch(/held/i);
    expect(held.body.code).toBe('PAYOUT_HELD');
    await settleSales();
    const paid = await player.collect();
    expect(paid.status).toBe(200);
    expect(typeof paid.body.transactionId).toBe('string');
    expect((await player.profile()).body.potEarned).toBe(0);
    expectError(await player.collect());
  });

  it('admin collect: the house pot to the admin, refused to a player under every key', async () => {
    expectError(await player.adminCollect(), 403);
    const profile = await admin.profile();
    expectProfile(profile.body);
    expect(profile.body.role).toBe('admin');
    expect(profile.body.adminBalance).toBeGreaterThan(0);
    if (!profile.body.paypalEmail) {
      expectError(await admin.adminCollect());
      expect((await admin.setPaymentMethod('house@paypal.example.com')).status).toBe(200);
      expect(await confirmPayoutFromInbox(inject('specSystem').admin.email)).toBe(200);
    }
    // The house pot too needs the admin's address verified; the bootstrap admin asks for a link.
    if (!profile.body.emailVerified) {
      expect(expectError(await admin.adminCollect(), 403)).toMatch(/verify your account email/i);
      expect((await admin.resendVerification()).status).toBeLessThan(300);
      await verifyFromInbox(inject('specSystem').admin.email);
    }
    const paid = await admin.adminCollect();
    expect(paid.status).toBe(200);
    expect(typeof paid.body.transactionId).toBe('string');
    expect((await admin.profile()).body.adminBalance).toBe(0);
  });

  it('role manager: the users list, a role saved, seen on the next request; a player may not', async () => {
    const list = await admin.adminUsers();
    expect(list.status).toBe(200);
    const entry = list.body.users.find((u: any) => u.username === PLAYER.username);
    expect(entry).toEqual({ username: PLAYER.username, email: PLAYER.email, role: 'standard' });
    expectError(await player.adminUsers(), 403);
    expectError(await player.updateRole(PLAYER.email, 'admin'), 403);
    expectError(await admin.updateRole(PLAYER.email, 'emperor'), 400);
    const saved = await admin.updateRole(PLAYER.email, 'superuser');
    expect(saved.status).toBe(200);
    expect(typeof saved.body.message).toBe('string');
    expect((await player.profile()).body.role).toBe('superuser');
    await until(async () => (await player.profile()).body.hasInfiniteClicks === true, 'unlimited clicks');
    expect((await admin.updateRole(PLAYER.email, 'standard')).status).toBe(200);
  });

  it('profile changes: email, password and username answer message; refusals name the problem', async () => {
    expectError(await player.changeEmail('nope'), 400);
    const email = `ana_new_${stamp}@example.com`;
    const changedEmail = await player.changeEmail(email);
    expect(changedEmail.status).toBe(200);
    expect(typeof changedEmail.body.message).toBe('string');
    // The email changes once the player opens the link mailed to the new address (the web app's
    // /confirm-email page makes this call).
    expect((await player.profile()).body.email).toBe(PLAYER.email);
    const confirmToken = await mailedToken(email, '/confirm-email');
    const confirmed = await new SpecBrowser().call('POST', '/api/user/confirm-email', {
      body: { token: confirmToken },
    });
    expect(confirmed.status).toBe(200);
    expect((await player.profile()).body.email).toBe(email);
    expectError(await player.changePassword('wrong-current', 'secret-ana-2'), 400);
    const changedPassword = await player.changePassword(PLAYER.password, 'secret-ana-2');
    expect(changedPassword.status).toBe(200);
    expect(typeof changedPassword.body.message).toBe('string');
    expectError(await player.changeUsername('no spaces allowed'), 400);
    const username = `ana_renamed_${stamp}`;
    const changedName = await player.changeUsername(username);
    expect(changedName.status).toBe(200);
    expect(typeof changedName.body.message).toBe('string');
    const again = new SpecBrowser();
    expect((await again.login(email, 'secret-ana-2')).status).toBe(200);
    expect((await again.profile()).body).toMatchObject({ username, email });
  });

  it('delete: refused with msg while winnings wait; after collecting, deleted; the winner shows no user', async () => {
    const second = new SpecBrowser();
    expect((await second.register(SECOND.username, SECOND.email, SECOND.password)).status).toBeLessThan(300);
    await firstClick(second);
    expect((await second.checkout(VALID_NONCE, '0.99')).body.success).toBe(true);
    await until(async () => (await second.gameState()).body.gameState.pot > 0, 'the pot of the second round');
    await clickUntil(admin, TARGET - 1);
    expect((await second.click()).status).toBe(200);
    await until(async () => (await second.profile()).body.potEarned > 0, 'the winnings credited');

    const refused = await second.deleteAccount();
    expect(expectError(refused, 409)).toMatch(/winnings/i);
    expect((await second.setPaymentMethod(`${SECOND.username}@paypal.example.com`)).status).toBe(200);
    expect(await confirmPayoutFromInbox(SECOND.email)).toBe(200);
    // The original client's sign-up clicks were granted at registration: verifying the email later grants none.
    const clicksBefore = (await second.profile()).body.freeClicks;
    await verifyFromInbox(SECOND.email);
    await new Promise((r) => setTimeout(r, 500));
    expect((await second.profile()).body.freeClicks).toBe(clicksBefore);
    await settleSales();
    expect((await second.collect()).status).toBe(200);
    const deleted = await second.deleteAccount();
    expect(deleted.status).toBe(200);
    expectError(await second.profile(), 401);
    // The game hears of the deletion by event: the winners list shows no user once it has.
    await until(
      async () => (await admin.winners()).body.winners[0].userId === null,
      'the winner to show no user',
    );
  });

  it('every live update any page heard carried the whole state, pot a number', () => {
    const heard = pages.flatMap((p) => p.states);
    expect(heard.length).toBeGreaterThan(0);
    for (const state of heard) expectGameState(state);
  });

  it('every answer and live event of the journey matches the API description the gateway serves', async () => {
    const described = await describedApi();
    for (const opened of pages) {
      for (const state of opened.states) described.checkEvent('gameStateUpdate', state);
      for (const winner of opened.winners) described.checkEvent('winner', winner);
      for (const count of opened.counts) described.checkEvent('userCountUpdate', count);
    }
    expect(described.mismatches).toEqual([]);
    // The journey walks most of the API: successes and refusals of each kind, and all three events.
    const checked = [...described.checked.keys()];
    expect(checked.length).toBeGreaterThan(20);
    for (const key of ['event gameStateUpdate', 'event winner', 'event userCountUpdate'])
      expect(checked).toContain(key);
    expect(checked.filter((k) => / 200$/.test(k)).length).toBeGreaterThan(15);
  });
});
