// The original web client, as docs/client-contract.md describes it and nothing more: the calls of section 7 with their
// payloads, the keys it reads, and its socket, opened with no token (`io({ transports: ['websocket'] })`).
// It shares no code with the product (no contracts package): it is the outsider the server must serve.
import { io, type Socket } from 'socket.io-client';
import { mailedLink, tokenOf } from '@omc/infra';
import { inject } from 'vitest';
import { DescribedApi } from './described.js';

export interface Answer {
  status: number;
  /** The parsed JSON body, or undefined when the answer is not JSON (the client contract reads some "only if JSON"). */
  body: any;
  contentType: string;
}

export function gatewayUrl(): string {
  return inject('specSystem').gatewayUrl;
}

let described: Promise<DescribedApi> | undefined;
/** The API description the gateway serves, read once; every /api answer below is checked against it. */
export function describedApi(): Promise<DescribedApi> {
  return (described ??= DescribedApi.load(gatewayUrl()));
}

/**
 * The token of the newest link to `path` (e.g. /confirm-email) mailed to `address`, read from the
 * development mail catcher's inbox as the player would open it; waits for the mail to arrive.
 */
export async function mailedToken(address: string, path: string): Promise<string> {
  const { mailUrl } = inject('specSystem');
  if (!mailUrl) throw new Error('no mail catcher in this system');
  return tokenOf(await mailedLink(mailUrl, address, path));
}

/** One browser: a token in "local storage", and a cookie jar for the calls made with credentials. */
export class SpecBrowser {
  token: string | null = null;
  private cookies = new Map<string, string>();

  /** A call of the client contract. `credentials` sends and keeps cookies, as `credentials: 'include'` does. */
  async call(
    method: string,
    path: string,
    options: { body?: unknown; bearer?: boolean; credentials?: boolean } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.bearer !== false && this.token) headers.authorization = `Bearer ${this.token}`;
    if (options.credentials && this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    }
    const response = await fetch(`${gatewayUrl()}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      redirect: 'manual',
    });
    if (options.credentials) {
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const at = pair!.indexOf('=');
        this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim());
      }
    }
    const contentType = response.headers.get('content-type') ?? '';
    const text = await response.text();
    let body: any;
    if (contentType.includes('application/json')) body = JSON.parse(text);
    if (path.startsWith('/api/'))
      (await describedApi()).checkAnswer(method, path, response.status, contentType, body);
    return { status: response.status, body, contentType };
  }

  /** The token's exp claim, in seconds (the client contract: expiry is read from it). */
  tokenExpiry(): number {
    const payload = JSON.parse(Buffer.from(this.token!.split('.')[1]!, 'base64url').toString());
    return payload.exp;
  }

  // The client contract, "Session": login or registration success sets and stores the token, then loads the profile.
  async register(username: string, email: string, password: string): Promise<Answer> {
    const answer = await this.call('POST', '/api/user/register', {
      body: { username, email, password },
      credentials: true,
    });
    if (answer.status < 300) this.token = answer.body.token;
    return answer;
  }

  async login(emailOrUsername: string, password: string): Promise<Answer> {
    const answer = await this.call('POST', '/api/user/login', {
      body: { emailOrUsername, password },
      credentials: true,
    });
    if (answer.status < 300 && answer.body) this.token = answer.body.token;
    return answer;
  }

  async refresh(): Promise<Answer> {
    const answer = await this.call('POST', '/api/user/refresh', { credentials: true, bearer: false });
    if (answer.status < 300) this.token = answer.body.token;
    return answer;
  }

  profile = () => this.call('GET', '/api/user/profile');
  gameState = () => this.call('GET', '/api/game/state');
  click = () => this.call('POST', '/api/game/click');
  winners = () => this.call('GET', '/api/winners');
  clientToken = () => this.call('GET', '/api/payments/token');
  checkout = (paymentMethodNonce: string, amount: string) =>
    this.call('POST', '/api/payments/checkout', { body: { paymentMethodNonce, amount } });
  setPaymentMethod = (paypalEmail: string) =>
    this.call('POST', '/api/winners/setPaymentMethod', { body: { paypalEmail } });
  collect = () => this.call('POST', '/api/winners/collect');
  adminCollect = () => this.call('POST', '/api/admin/collect');
  adminUsers = () => this.call('GET', '/api/admin/users');
  updateRole = (email: string, role: string) =>
    this.call('POST', '/api/admin/updateRole', { body: { email, role } });
  changeLanguage = (language: string) =>
    this.call('PUT', '/api/user/change-language', { body: { language } });
  changeEmail = (email: string) => this.call('PUT', '/api/user/change-email', { body: { email } });
  changePassword = (currentPassword: string, newPassword: string) =>
    this.call('PUT', '/api/user/change-password', { body: { currentPassword, newPassword } });
  changeUsername = (username: string) =>
    this.call('PUT', '/api/user/change-username', { body: { username } });
  deleteAccount = () => this.call('DELETE', '/api/user/delete-account');
  resendVerification = () => this.call('POST', '/api/user/resend-verification');
}

/** What the page keeps of the live events (the client contract, "Live events"). */
export interface LivePage {
  socket: Socket;
  /** Each gameStateUpdate replaces the whole game state. */
  states: any[];
  winners: any[];
  counts: any[];
  close(): void;
}

/** The original client's socket: `io({ transports: ['websocket'] })`, no token, default path, listening only. */
export function openLivePage(listen = true): LivePage {
  const socket = io(gatewayUrl(), { transports: ['websocket'], forceNew: true });
  const page: LivePage = { socket, states: [], winners: [], counts: [], close: () => void socket.close() };
  if (listen) {
    socket.on('gameStateUpdate', (state) => page.states.push(state));
    socket.on('winner', (winner) => page.winners.push(winner));
    socket.on('userCountUpdate', (count) => page.counts.push(count));
  }
  return page;
}

/** The client contract formats amounts with two decimals (`pot.toFixed(2)`): this throws exactly where its page went blank. */
export function formatPot(state: { pot: unknown }): string {
  return (state.pot as number).toFixed(2);
}

export async function until<T>(
  check: () => T | Promise<T>,
  what: string,
  timeoutMs = 10_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Braintree's settlement batch, run at the emulator: a winner's collect waits until the purchases made
 * before the win settled (docs/payments.md, "Clawbacks and payout holds").
 */
export async function settleSales(): Promise<void> {
  const answer = await fetch(`${inject('specSystem').emulatorUrl}/__emulator/braintree/settlement-batch`, {
    method: 'POST',
  });
  if (answer.status !== 200) throw new Error(`the settlement batch answered ${answer.status}`);
}
