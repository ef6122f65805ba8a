// An operator suspends a player who is signed in and playing: the player's very next click (well within
// the access token's 15 minutes) is refused, the page says the account is suspended with the operator's
// reason, the browser is signed out, and it does not keep retrying. The operator's list shows the
// player's balances and the suspension.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, newPlayer } from './browser';
import { clickButton, registerThroughUi, shownFreeClicks, uniqueName, until } from './players';

const gatewayUrl = inject('gatewayUrl');
const admin = inject('admin');

let browser: Browser;
let player: { context: BrowserContext; page: Page };
const username = uniqueName('susp');

beforeAll(async () => {
  browser = await launchBrowser();
  player = await newPlayer(browser, gatewayUrl);
});

afterAll(async () => {
  await browser?.close();
});

/** The admin's calls, as an operator makes them with curl: through the gateway, with their token. */
async function api<T>(
  path: string,
  init: { method?: string; token?: string; body?: unknown } = {},
): Promise<T> {
  const response = await fetch(`${gatewayUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const body = (await response.json()) as T;
  if (!response.ok)
    throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

interface Entry {
  id: string;
  username: string;
  suspended: boolean;
  balances?: { freeClicks: number | null };
}

describe('a suspension while the player is signed in', () => {
  it('refuses the next click, tells the player why, signs the browser out and stops there', async () => {
    const { page } = player;
    await registerThroughUi(page, username);
    const start = Number(
      await until(
        () => shownFreeClicks(page),
        (v) => /^\d+$/.test(v),
      ),
    );
    await clickButton(page).click();
    await until(
      () => shownFreeClicks(page),
      (v) => v === String(start - 1),
    );

    const { token } = await api<{ token: string }>('/api/user/login', {
      method: 'POST',
      body: { emailOrUsername: admin.username, password: admin.password },
    });
    const found = await api<{ users: Entry[] }>(`/api/admin/users?query=${username}`, { token });
    const entry = found.users.find((u) => u.username === username)!;
    expect(entry.balances?.freeClicks).toBe(start - 1);
    const reason = 'Automated clicking from 40 accounts';
    await api(`/api/admin/users/${entry.id}/suspend`, { method: 'POST', token, body: { reason } });

    // The page still holds a live access token; the click is the first thing it sends.
    const requests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/')) requests.push(new URL(request.url()).pathname);
    });
    await clickButton(page).click();
    const notice = page.getByRole('alert').filter({ hasText: 'Tu cuenta está suspendida' });
    await notice.waitFor();
    expect(await notice.textContent()).toContain(reason);
    expect(await page.evaluate(() => window.localStorage.getItem('token'))).toBeNull();
    await page.waitForURL((url) => url.pathname === '/');
    // No retry loop: after the click, nothing that needs the session is sent again.
    await page.waitForTimeout(2_000);
    expect(requests.filter((p) => p === '/api/game/click')).toHaveLength(1);
    expect(requests.filter((p) => p.startsWith('/api/user/refresh'))).toEqual([]);

    const listed = (await api<{ users: Entry[] }>(`/api/admin/users?query=${username}`, { token })).users;
    expect(listed.find((u) => u.id === entry.id)).toMatchObject({ suspended: true });
  });
});
