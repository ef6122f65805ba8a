// Installs Debian's Chromium when missing, builds the web app and starts the whole system (infrastructure,
// emulators, services, gateway) on free ports for the browser tests; stops every process it started at the end.
import { ensureChromium, ensureWebBuilt, startSystem, type System } from '@omc/infra';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { E2E_ENV } from './config';

const root = resolve(import.meta.dirname, '..', '..', '..');

declare module 'vitest' {
  export interface ProvidedContext {
    gatewayUrl: string;
    admin: { username: string; email: string; password: string };
    roundTarget: number;
    /** The development mail catcher's web inbox and API (maildev). */
    mailUrl: string;
    /** The provider emulators, whose test controls run Braintree's settlement batch. */
    emulatorUrl: string;
  }
}

export default async function setup(project: TestProject) {
  ensureChromium();
  ensureWebBuilt(root, { force: process.env.E2E_FORCE_BUILD === '1' });
  const dir = join(root, '.data', `e2e-${process.pid}`);
  let system: System | undefined;
  try {
    system = await startSystem({
      root,
      dir,
      env: E2E_ENV,
      log: () => undefined,
    });
  } catch (error) {
    console.error(`the system did not start; logs are in ${join(dir, 'logs')}`);
    throw error;
  }
  project.provide('gatewayUrl', system.gatewayUrl);
  project.provide('admin', system.admin);
  project.provide('roundTarget', Number(E2E_ENV.ROUND_TARGET));
  project.provide('mailUrl', system.mail?.uiUrl ?? '');
  project.provide('emulatorUrl', system.urls.emulators ?? '');
  return async () => {
    await system?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
