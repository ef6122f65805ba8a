// A screenshot of every screen in a phone and a desktop viewport, kept under test-artifacts/e2e for a
// person to look at; each screen is also checked for content wider than the viewport.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, newPlayer, screenshot, VIEWPORTS, type ViewportName } from './browser';
import { loginThroughUi, registerThroughUi, uniqueName } from './players';

const gatewayUrl = inject('gatewayUrl');
const admin = inject('admin');
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function capture(page: Page, name: string, viewport: ViewportName) {
  await page.waitForTimeout(350); // let dialogs and fades finish their animation
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${name} is wider than the ${viewport} viewport`).toBeLessThanOrEqual(0);
  await screenshot(page, `${name}-${viewport}`);
}

describe.each(Object.keys(VIEWPORTS) as ViewportName[])('screens at %s size', (viewport) => {
  it('welcome, dialogs, game, buying, winners', async () => {
    const { page, context } = await newPlayer(browser, gatewayUrl, viewport);
    await page.goto('/');
    await page.getByRole('heading', { name: 'Un Millón de Clics' }).waitFor();
    await capture(page, 'welcome', viewport);
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    await capture(page, 'login-dialog', viewport);
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'Continuar como invitado' }).click();
    await page.getByText(/Próximo hito/).waitFor();
    await capture(page, 'game-guest', viewport);

    await registerThroughUi(page, uniqueName('shot'));
    await page.getByText(/Próximo hito/).waitFor();
    await page.getByTestId('free-clicks').filter({ hasText: /\d/ }).waitFor();
    await capture(page, 'game', viewport);
    await page.getByRole('button', { name: 'Comprar clics' }).click();
    await page.getByRole('dialog', { name: 'Comprar clics' }).getByRole('note').waitFor();
    await capture(page, 'buy-dialog', viewport);
    await page.keyboard.press('Escape');

    await page.getByRole('link', { name: 'Ganadores' }).click();
    await page.getByRole('heading', { name: 'Ganadores' }).waitFor();
    await page.waitForLoadState('networkidle');
    await capture(page, 'winners', viewport);
    await page.getByRole('button', { name: 'Ganador al azar' }).click();
    await capture(page, 'winners-random', viewport);
    await context.close();
  });

  it('profile and role manager of an admin', async () => {
    const { page, context } = await newPlayer(browser, gatewayUrl, viewport);
    await loginThroughUi(page, admin.username, admin.password);
    await page.getByRole('link', { name: `Hola, ${admin.username}` }).click();
    await page.locator('h1', { hasText: admin.username }).waitFor();
    await page.getByTestId('admin-balance').filter({ hasText: /\d/ }).waitFor();
    await capture(page, 'profile-admin', viewport);
    await page.getByRole('button', { name: 'Cambiar contraseña' }).click();
    await capture(page, 'change-password-dialog', viewport);
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Gestionar roles' }).click();
    await page.getByRole('heading', { name: 'Gestión de roles' }).waitFor();
    await capture(page, 'role-manager', viewport);
    await context.close();
  });
});
