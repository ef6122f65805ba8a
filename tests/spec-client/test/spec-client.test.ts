// SPEC.md's own client, played call for call and event for event through the gateway (SPEC sections 4
// and 7): sockets opened with no token and the websocket transport only, bodies read by exactly the
// keys that client reads, each with its type. One story in order, as a new player would live it.
import { randomUUID } from 'node:crypto';
import { TEST_NONCES } from '@omc/emulators';
import { eventually } from '@omc/testkit';
import { io, type Socket } from 'socket.io-client';
import { afterAll, describe, expect, inject, it } from 'vitest';

const { gatewayUrl, admin } = inject('system');

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** A call as SPEC's client makes it: JSON, a bearer token when it has one, and the refresh cookie. */
async function call(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; cookie?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.cookie) headers.cookie = options.cookie;
  const response = await fetch(gatewayUrl + path, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { unparsed: text };
  }
  return { status: response.status, body, headers: response.headers };
}

/** SPEC section 7 names message, error and msg: every error body has all three, with the same text. */
function expectErrorBody(answer: Answer, status?: number): string {
  if (status !== undefined) expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  else expect(answer.status).toBeGreaterThanOrEqual(400);
  const { message, error, msg } = answer.body;
  expect(typeof message).toBe('string');
  expect((message as string).length).toBeGreaterThan(0);
  expect(error).toBe(message);
  expect(msg).toBe(message);
  return message as string;
}

/** The game state as SPEC section 3 has it, the same for guests and players. */
function expectGameState(state: unknown): asserts state is {
  globalClicks: number;
  pot: number;
  lastWinner: string | null;
  lastClickUser: string | null;
} {
  const s = state as Record<string, unknown>;
  expect(Number.isInteger(s.globalClicks)).toBe(true);
  // The client formats pot with two decimals: it must be a number, always.
  expect(typeof s.pot).toBe('number');
  expect(() => (s.pot as number).toFixed(2)).not.toThrow();
  expect(s.lastWinner === null || typeof s.lastWinner === 'string').toBe(true);
  expect(s.lastClickUser === null || typeof s.lastClickUser === 'string').toBe(true);
}

interface Client {
  socket: Socket;
  states: unknown[];
  winners: unknown[];
  counts: unknown[];
}

const clients: Client[] = [];

/** SPEC's socket: `io({ transports: ['websocket'] })`, default path, no token, listening only. */
function openSocket(): Client {
  const socket = io(gatewayUrl, { transports: ['websocket'] });
  const client: Client = { socket, states: [], winners: [], counts: [] };
  socket.on('gameStateUpdate', (state: unknown) => client.states.push(state));
  socket.on('winner', (winner: unknown) => client.winners.push(winner));
  socket.on('userCountUpdate', (count: unknown) => client.counts.push(count));
  clients.push(client);
  return client;
}

afterAll(() => {
  for (const c of clients) c.socket.close();
});

const suffix = randomUUID().slice(0, 8);
const player = {
  username: `spec_${suffix}`,
  email: `spec-${suffix}@example.com`,
  password: 'a-long-password-1',
};
let token = '';
let refreshCookie = '';
let first: Client;
let second: Client;

async function profile(bearer = token) {
  const answer = await call('GET', '/api/user/profile', { token: bearer });
  expect(answer.status).toBe(200);
  return answer.body;
}

async function click(bearer = token) {
  const answer = await call('POST', '/api/game/click', { token: bearer });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as { globalClicks: number };
}

describe("SPEC's client, through the gateway", () => {
  it('welcome: the game state and the live socket, with the pot, before anyone signs in', async () => {
    const state = await call('GET', '/api/game/state');
    expect(state.status).toBe(200);
    expectGameState(state.body.gameState);

    first = openSocket();
    await eventually(() => first.socket.connected && first.states.length > 0, 'the state on connect');
    expect(first.socket.io.engine.transport.name).toBe('websocket');
    for (const s of first.states) expectGameState(s);
    await eventually(() => first.counts.length > 0, 'the user count on connect');
    expect(Number.isInteger(first.counts[0])).toBe(true);
  });

  it('a listener attached late still hears the user count (sent again at a steady pace)', async () => {
    const late = io(gatewayUrl, { transports: ['websocket'] });
    const counts: unknown[] = [];
    clients.push({ socket: late, states: [], winners: [], counts });
    await eventually(() => late.connected, 'the late socket');
    await new Promise((r) => setTimeout(r, 300));
    late.on('userCountUpdate', (count: unknown) => counts.push(count));
    await eventually(() => counts.length > 0, 'a user count without anyone joining or leaving', 20_000);
    expect(Number.isInteger(counts[0])).toBe(true);
  });

  it('guest: the winners list, the payment token without a bearer, a refused click with its message', async () => {
    const winners = await call('GET', '/api/winners');
    expect(winners.status).toBe(200);
    expect(Array.isArray(winners.body.winners)).toBe(true);
    const clientToken = await call('GET', '/api/payments/token');
    if (clientToken.status === 200) expect(typeof clientToken.body.clientToken).toBe('string');
    else expectErrorBody(clientToken);
    expectErrorBody(await call('POST', '/api/game/click'), 401);
  });

  it('register and log in: token and message; the profile with every field the client reads', async () => {
    const registered = await call('POST', '/api/user/register', { body: player });
    expect(registered.status).toBe(201);
    expect(typeof registered.body.token).toBe('string');
    expect(typeof registered.body.message).toBe('string');
    expectErrorBody(await call('POST', '/api/user/register', { body: player }));

    const login = await call('POST', '/api/user/login', {
      body: { emailOrUsername: player.username, password: player.password },
    });
    expect(login.status).toBe(200);
    expect(typeof login.body.token).toBe('string');
    expect(typeof login.body.preferredLanguage).toBe('string');
    expect(typeof login.body.message).toBe('string');
    token = login.body.token as string;
    refreshCookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const badLogin = await call('POST', '/api/user/login', {
      body: { emailOrUsername: player.username, password: 'wrong-password-1' },
    });
    expectErrorBody(badLogin);

    const refreshed = await call('POST', '/api/user/refresh', { cookie: refreshCookie });
    expect(refreshed.status).toBe(200);
    expect(typeof refreshed.body.token).toBe('string');
    token = refreshed.body.token as string;
    refreshCookie = (refreshed.headers.get('set-cookie') ?? refreshCookie).split(';')[0]!;

    // The game learns of the new player by an event: the profile holds the game's part once it has.
    await eventually(async () => typeof (await profile()).freeClicks === 'number', "the game's part");
    const me = await profile();
    expect(me.username).toBe(player.username);
    expect(me.email).toBe(player.email);
    expect(me.role).toBe('standard');
    expect(me.adminBalance === null || typeof me.adminBalance === 'number').toBe(true);
    expect(me.paypalEmail).toBeNull();
    expect(me.freeClicks).toBe(40);
    expect(typeof me.hasInfiniteClicks).toBe('boolean');
    expect(typeof me.potEarned).toBe('number');
  });

  it('click: the counter moves, and a second client (no token) sees it live with the pot and the clicker', async () => {
    second = openSocket();
    await eventually(() => second.socket.connected && second.states.length > 0, 'the second client');
    const { globalClicks } = await click();
    expect(Number.isInteger(globalClicks)).toBe(true);
    for (const c of [first, second]) {
      await eventually(
        () => (c.states.at(-1) as { globalClicks?: number })?.globalClicks === globalClicks,
        'the click on both sockets',
      );
      const last = c.states.at(-1);
      expectGameState(last);
      expect(last.lastClickUser).toBe(player.username);
    }
    const state = await call('GET', '/api/game/state');
    expectGameState(state.body.gameState);
    expect((state.body.gameState as { lastClickUser: string }).lastClickUser).toBe(player.username);
  });

  it('buy: the valid test nonce pays and credits the pack; the declined one says why under error', async () => {
    expect(TEST_NONCES['fake-valid-nonce']?.kind).toBe('approved');
    expect(TEST_NONCES['fake-processor-declined-visa-nonce']?.kind).toBe('processor_declined');
    const clientToken = await call('GET', '/api/payments/token', { token });
    expect(clientToken.status).toBe(200);
    expect(typeof clientToken.body.clientToken).toBe('string');

    const before = await profile();
    const paid = await call('POST', '/api/payments/checkout', {
      token,
      body: { paymentMethodNonce: 'fake-valid-nonce', amount: '0.99' },
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.success).toBe(true);
    expect(typeof paid.body.transactionId).toBe('string');
    // freeClicks is what the client shows and spends: purchased clicks are part of it.
    const clicksOf = (p: Record<string, unknown>) => Number(p.freeClicks);
    await eventually(async () => clicksOf(await profile()) === clicksOf(before) + 100, '100 clicks credited');

    const declined = await call('POST', '/api/payments/checkout', {
      token,
      body: { paymentMethodNonce: 'fake-processor-declined-visa-nonce', amount: '0.99' },
    });
    expect(declined.body.success).toBe(false);
    expect(typeof declined.body.error).toBe('string');
    expect(declined.body.message).toBe(declined.body.error);
    expect(declined.body.msg).toBe(declined.body.error);
    expectErrorBody(await call('POST', '/api/payments/checkout', { token, body: { amount: 'lots' } }), 400);

    // The purchase raised the pot, which everyone (guests included) sees as a number.
    const state = await call('GET', '/api/game/state');
    expectGameState(state.body.gameState);
    expect((state.body.gameState as { pot: number }).pot).toBeGreaterThan(0);
  });

  it('milestone: the tenth click of the round gives its clicker the milestone clicks', async () => {
    // freeClicks is what the client shows and spends: purchased clicks are part of it.
    const clicksOf = (p: Record<string, unknown>) => Number(p.freeClicks);
    let counter = (await call('GET', '/api/game/state')).body.gameState as { globalClicks: number };
    while (counter.globalClicks < 9) counter = await click();
    const before = clicksOf(await profile());
    const at = await click();
    expect(at.globalClicks).toBe(10);
    await eventually(async () => clicksOf(await profile()) === before - 1 + 5, 'the milestone clicks');
  });

  it('winner: the last click of the round wins; every socket hears {username, pot}', async () => {
    let counter = { globalClicks: 10 };
    while (counter.globalClicks < 29) counter = await click();
    const last = await click();
    expect(last.globalClicks).toBe(30);
    for (const c of [first, second]) {
      await eventually(() => c.winners.length > 0, 'the winner alert');
      const winner = c.winners.at(-1) as { username: unknown; pot: unknown };
      expect(winner.username).toBe(player.username);
      expect(typeof winner.pot).toBe('number');
      expect(winner.pot as number).toBeGreaterThan(0);
      await eventually(
        () => (c.states.at(-1) as { lastWinner?: string })?.lastWinner === player.username,
        'the new round with its last winner',
      );
      expectGameState(c.states.at(-1));
    }
  });

  it('winners page: _id, the winner by username, pot and date', async () => {
    const answer = await call('GET', '/api/winners');
    expect(answer.status).toBe(200);
    const [latest] = answer.body.winners as Record<string, unknown>[];
    expect(typeof latest!._id).toBe('string');
    expect((latest!.userId as { username: string }).username).toBe(player.username);
    expect(typeof latest!.pot).toBe('number');
    expect(Number.isNaN(Date.parse(latest!.createdAt as string))).toBe(false);
  });

  it('profile changes: language, email, username and password answer a message; a refusal has its keys', async () => {
    const language = await call('PUT', '/api/user/change-language', { token, body: { language: 'en' } });
    expect(language.status).toBe(200);
    player.email = `spec-new-${suffix}@example.com`;
    const email = await call('PUT', '/api/user/change-email', { token, body: { email: player.email } });
    expect(email.status).toBe(200);
    expect(typeof email.body.message).toBe('string');
    expectErrorBody(
      await call('PUT', '/api/user/change-email', { token, body: { email: 'not-an-email' } }),
      400,
    );
    player.username = `spec_new_${suffix}`;
    const username = await call('PUT', '/api/user/change-username', {
      token,
      body: { username: player.username },
    });
    expect(username.status).toBe(200);
    expect(typeof username.body.message).toBe('string');
    expectErrorBody(
      await call('PUT', '/api/user/change-password', {
        token,
        body: { currentPassword: 'not-the-password-1', newPassword: 'another-long-password-2' },
      }),
    );
    const password = await call('PUT', '/api/user/change-password', {
      token,
      body: { currentPassword: player.password, newPassword: 'another-long-password-2' },
    });
    expect(password.status).toBe(200);
    expect(typeof password.body.message).toBe('string');
    player.password = 'another-long-password-2';
    const login = await call('POST', '/api/user/login', {
      body: { emailOrUsername: player.email, password: player.password },
    });
    expect(login.status).toBe(200);
    token = login.body.token as string;
    const me = await profile();
    expect(me.username).toBe(player.username);
    expect(me.email).toBe(player.email);
  });

  it('payout email and collect: the email is saved; collect answers a transactionId and empties the winnings', async () => {
    expectErrorBody(
      await call('POST', '/api/winners/setPaymentMethod', { token, body: { paypalEmail: 'nope' } }),
      400,
    );
    const saved = await call('POST', '/api/winners/setPaymentMethod', {
      token,
      body: { paypalEmail: `payout-${suffix}@example.com` },
    });
    expect(saved.status).toBe(200);
    await eventually(async () => Number((await profile()).potEarned) > 0, 'the winnings in the profile');
    expect((await profile()).paypalEmail).toBe(`payout-${suffix}@example.com`);
    const collected = await call('POST', '/api/winners/collect', { token });
    expect(collected.status, JSON.stringify(collected.body)).toBe(200);
    expect(typeof collected.body.transactionId).toBe('string');
    await eventually(async () => (await profile()).potEarned === 0, 'the winnings paid out');
    expectErrorBody(await call('POST', '/api/winners/collect', { token }));
  });

  it("admin collect and the role manager: the house's share, the users list, a role change", async () => {
    expectErrorBody(await call('GET', '/api/admin/users', { token }), 403);
    expectErrorBody(await call('POST', '/api/admin/collect', { token }), 403);

    const login = await call('POST', '/api/user/login', {
      body: { emailOrUsername: admin.username, password: admin.password },
    });
    expect(login.status).toBe(200);
    const adminToken = login.body.token as string;
    await call('POST', '/api/winners/setPaymentMethod', {
      token: adminToken,
      body: { paypalEmail: `house-${suffix}@example.com` },
    });
    const adminProfile = await profile(adminToken);
    expect(adminProfile.role).toBe('admin');
    expect(typeof adminProfile.adminBalance).toBe('number');
    const collected = await call('POST', '/api/admin/collect', { token: adminToken });
    if (collected.status === 200) expect(typeof collected.body.transactionId).toBe('string');
    else expectErrorBody(collected);

    const users = await call('GET', '/api/admin/users', { token: adminToken });
    expect(users.status).toBe(200);
    const listed = (users.body.users as Record<string, unknown>[]).find((u) => u.email === player.email);
    expect(listed).toEqual({ username: player.username, email: player.email, role: 'standard' });
    expectErrorBody(
      await call('POST', '/api/admin/updateRole', {
        token: adminToken,
        body: { email: player.email, role: 'king' },
      }),
      400,
    );
    const updated = await call('POST', '/api/admin/updateRole', {
      token: adminToken,
      body: { email: player.email, role: 'superuser' },
    });
    expect(updated.status).toBe(200);
    expect(typeof updated.body.message).toBe('string');
    expect((await profile()).role).toBe('superuser');
  });

  it('delete: the account goes; a second attempt is refused with msg', async () => {
    const deleted = await call('DELETE', '/api/user/delete-account', { token });
    expect(deleted.status).toBe(200);
    const again = await call('DELETE', '/api/user/delete-account', { token });
    expectErrorBody(again);
    expect(typeof again.body.msg).toBe('string');
  });
});
