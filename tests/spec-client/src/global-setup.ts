// Starts the whole system as `npm start` does (free ports, throw-away data), with the client contract's demo
// round: milestones at 10 and 50, the pot at 100. Builds the web app when it is not built yet.
import { join } from 'node:path';
import { ensureWebBuilt, startSystem } from '@omc/infra';
import { workspaceRoot } from '@omc/testkit';
import type { TestProject } from 'vitest/node';

export const ADMIN = {
  username: 'spec_admin',
  email: 'spec-admin@example.com',
  password: 'spec-admin-password',
};

declare module 'vitest' {
  export interface ProvidedContext {
    /** mailUrl: the mail catcher's inbox, where players find their verification links. */
    /** emulatorUrl: the provider emulators, whose test controls run Braintree's settlement batch. */
    specSystem: { gatewayUrl: string; mailUrl: string; emulatorUrl: string; admin: typeof ADMIN };
  }
}

export default async function setup(project: TestProject) {
  const root = workspaceRoot();
  ensureWebBuilt(root, { stdio: 'ignore' });
  const dir = join(root, '.data', 'test', `spec-client-${process.pid}`);
  const system = await startSystem({
    root,
    dir,
    env: {
      ROUND_TARGET: '100',
      MILESTONES: '10:100,50:500',
      SIGNUP_FREE_CLICKS: '10',
      // One host plays every part; the limits have their own suites.
      RATE_LIMIT_PER_IP: '0',
      CLICK_RATE_PER_USER: '1000',
      CLICK_RATE_PER_IP: '0',
      REGISTER_MAX_PER_IP: '0',
      BOOTSTRAP_ADMIN_USERNAME: ADMIN.username,
      BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      USER_COUNT_RESEND_MS: '1000',
      LOG_LEVEL: 'info',
    },
    log: () => undefined,
  });
  project.provide('specSystem', {
    gatewayUrl: system.gatewayUrl,
    mailUrl: system.mail?.uiUrl ?? '',
    emulatorUrl: system.urls.emulators ?? '',
    admin: ADMIN,
  });
  return () => system.stop();
}
