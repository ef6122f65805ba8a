// Switching the language changes every string the player reads; names, numbers and the language
// names themselves (marked translate="no") are the only text that stays.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, newPlayer } from './browser';
import { registerThroughUi, uniqueName } from './players';

const gatewayUrl = inject('gatewayUrl');
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

/** Every visible text node with a letter in it, outside translate="no" elements. */
function visibleTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const texts: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent?.trim() ?? '';
      const parent = node.parentElement;
      if (!text || !/\p{L}/u.test(text) || !parent) continue;
      if (parent.closest('[translate="no"], script, style, option')) continue;
      const style = getComputedStyle(parent);
      if (style.display === 'none' || style.visibility === 'hidden' || parent.getClientRects().length === 0)
        continue;
      texts.push(text);
    }
    return texts;
  });
}

async function switchTo(page: Page, label: string, language: string) {
  await page.getByLabel(label).first().selectOption(language);
  await page.waitForFunction((lang) => document.documentElement.lang === lang, language);
}

describe('languages', () => {
  it('switching from Spanish to English changes every visible string of the welcome screen', async () => {
    const { page, context } = await newPlayer(browser, gatewayUrl);
    await page.goto('/');
    await page.getByRole('heading', { name: 'Un Millón de Clics' }).waitFor();
    const spanish = await visibleTexts(page);
    expect(spanish.length).toBeGreaterThan(8);
    await switchTo(page, 'Idioma', 'en');
    await page.getByRole('heading', { name: 'One Million Clicks' }).waitFor();
    const english = await visibleTexts(page);
    expect(english.filter((text) => spanish.includes(text))).toEqual([]);
    expect(english.length).toBe(spanish.length);
    // The choice survives a reload.
    await page.reload();
    await page.getByRole('heading', { name: 'One Million Clicks' }).waitFor();
    await context.close();
  });

  it('switching language on the game screen changes every visible string and is kept for the next login', async () => {
    const { page, context } = await newPlayer(browser, gatewayUrl);
    const username = uniqueName('lang');
    await registerThroughUi(page, username);
    await page.getByText(/Jugadores conectados: \d+/).waitFor();
    await page.getByText(/Próximo hito/).waitFor();
    const spanish = await visibleTexts(page);
    await switchTo(page, 'Idioma', 'de');
    await page.getByText(/Spieler online: \d+/).waitFor();
    const german = await visibleTexts(page);
    expect(german.filter((text) => spanish.includes(text))).toEqual([]);

    // The server keeps the choice: after logging out and resetting the browser's own memory of it,
    // logging in again brings German back.
    await page.getByRole('button', { name: 'Abmelden' }).click();
    await page.evaluate(() => window.localStorage.removeItem('language'));
    await page.goto('/');
    await context.clearCookies();
    await page.evaluate(() => window.localStorage.clear());
    await page.reload();
    await page.getByRole('heading', { name: 'Un Millón de Clics' }).waitFor();
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    const dialog = page.getByRole('dialog', { name: 'Iniciar sesión' });
    await dialog.getByLabel('Correo o nombre de usuario').fill(username);
    await dialog.getByLabel('Contraseña', { exact: true }).fill('secret123');
    await dialog.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('link', { name: `Hallo, ${username}` }).waitFor();
    await context.close();
  });
});
