// A player's whole journey through one gateway, as the web app makes it: register, click, see the counter
// move over the socket, buy clicks with Braintree's valid test nonce, win the (short) round, verify the
// account email from the mail in the catcher (collecting needs it), collect once the purchase settled.
import { randomBytes } from 'node:crypto';
import { SOCKET_CLIENT_OPTIONS } from '@omc/contracts';
import { setPayoutEmailFromCatcher, verifyEmailFromCatcher } from '@omc/infra';
import { io } from 'socket.io-client';

export interface JourneyOutcome {
  username: string;
  liveCounter: number;
  purchase: { status: number; success?: boolean };
  winningClick: number;
  /** The collect refused before the email was verified. */
  unverifiedCollect: { status: number; code?: string };
  collected: { status: number; amount?: number };
  potLeft?: number;
}

async function call(
  base: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(base + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(20_000),
  });
  const text = await response.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed };
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** `mailUrl`: the mail catcher's web inbox (maildev) that auth's mail reaches. */
export async function journey(gatewayUrl: string, mailUrl: string): Promise<JourneyOutcome> {
  const username = `c_${randomBytes(5).toString('hex')}`;
  const registered = await call(gatewayUrl, 'POST', '/api/user/register', undefined, {
    username,
    email: `${username}@example.com`,
    password: 'secret-password-1',
  });
  if (registered.status !== 200 && registered.status !== 201)
    throw new Error(`register: ${registered.status} ${JSON.stringify(registered.body)}`);
  const token: string = registered.body.token;
  // The game learns of the player by auth's event.
  await until('the game to know the player', async () =>
    (await call(gatewayUrl, 'GET', '/api/game/profile', token)).status === 200 ? true : undefined,
  );

  const socket = io(gatewayUrl, { ...SOCKET_CLIENT_OPTIONS, auth: { token }, forceNew: true });
  const counters: number[] = [];
  socket.on('gameStateUpdate', (state: { globalClicks: number }) => counters.push(state.globalClicks));
  try {
    await until('the socket to connect', async () => (socket.connected ? true : undefined));
    const click = async () => {
      for (;;) {
        const answer = await call(gatewayUrl, 'POST', '/api/game/click', token);
        if (answer.status === 429) {
          await new Promise((r) => setTimeout(r, 200));
          continue;
        }
        return answer;
      }
    };
    const first = await click();
    if (first.status !== 200) throw new Error(`click: ${first.status} ${JSON.stringify(first.body)}`);
    const liveCounter = await until('a live update with the click', async () =>
      counters.find((c) => c >= first.body.globalClicks),
    );

    const purchase = await call(gatewayUrl, 'POST', '/api/payments/checkout', token, {
      paymentMethodNonce: 'fake-valid-nonce',
      amount: '0.99',
      idempotencyKey: `compose_${randomBytes(8).toString('hex')}`,
    });
    if (purchase.status === 200)
      await until('the purchased clicks', async () => {
        const profile = await call(gatewayUrl, 'GET', '/api/game/profile', token);
        return profile.body?.purchasedClicks > 0 ? true : undefined;
      });

    let winningClick = 0;
    for (let i = 0; i < 500 && !winningClick; i++) {
      const answer = await click();
      if (answer.status !== 200)
        throw new Error(`click while winning: ${answer.status} ${JSON.stringify(answer.body)}`);
      if (answer.body.won) winningClick = answer.body.globalClicks;
    }
    if (!winningClick) throw new Error('no win within 500 clicks');

    await until('the winnings in payments', async () => {
      const profile = await call(gatewayUrl, 'GET', '/api/payments/profile', token);
      return profile.body?.potEarned > 0 ? true : undefined;
    });
    // The payout email counts once confirmed from the link mailed to the account's email.
    const email = await setPayoutEmailFromCatcher(
      { token, email: `${username}@example.com` },
      `${username}@paypal.example.com`,
      { mailUrl, apiUrl: gatewayUrl, currentPassword: 'secret-password-1', timeoutMs: 60_000 },
    );
    if (email.confirmed !== 200)
      throw new Error(`payout email: ${email.requested} ${email.confirmed} ${JSON.stringify(email.body)}`);
    const unverified = await call(gatewayUrl, 'POST', '/api/winners/collect', token);
    await verifyEmailFromCatcher(`${username}@example.com`, {
      mailUrl,
      apiUrl: gatewayUrl,
      timeoutMs: 60_000,
    });
    // The purchase before the win holds the collect until Braintree settles it: the compose emulator's
    // batch settles each sale SETTLE_AFTER_MS (5 s) after it was made, and a collect reads it at once.
    const collected = await until('a collect not held for the purchase', async () => {
      const answer = await call(gatewayUrl, 'POST', '/api/winners/collect', token);
      return answer.status === 409 && answer.body?.code === 'PAYOUT_HELD' ? undefined : answer;
    });
    const after = await call(gatewayUrl, 'GET', '/api/payments/profile', token);
    return {
      username,
      liveCounter,
      purchase: { status: purchase.status, success: purchase.body?.success },
      winningClick,
      unverifiedCollect: { status: unverified.status, code: unverified.body?.code },
      collected: { status: collected.status, amount: collected.body?.amount },
      potLeft: after.body?.potEarned,
    };
  } finally {
    socket.close();
  }
}
