// Starts the whole system as `npm start` does (on free ports, throw-away data) and builds the web app
// when it is not built yet.
import { join } from 'node:path';
import { ensureWebBuilt, startSystem } from '@omc/infra';
import { workspaceRoot } from '@omc/testkit';
import type { TestProject } from 'vitest/node';

/** The operator of this system (the operator-tools test signs in as them). */
export const SYSTEM_ADMIN = {
  username: 'system_admin',
  email: 'system-admin@example.com',
  password: 'system-admin-password',
};

declare module 'vitest' {
  export interface ProvidedContext {
    system: {
      gatewayUrl: string;
      logsDir: string;
      urls: Record<string, string>;
      mailUrl: string;
      databaseUrls: Record<string, string>;
    };
  }
}

export default async function setup(project: TestProject) {
  const root = workspaceRoot();
  ensureWebBuilt(root, { stdio: 'ignore' });
  const dir = join(root, '.data', 'test', `system-${process.pid}`);
  const system = await startSystem({
    root,
    dir,
    // The operator's switch against throwaway-account farms is on here (off, the original client's default, in the
    // other system suites): the sign-up clicks wait for a verified email.
    env: {
      RATE_LIMIT_PER_IP: '0',
      LOG_LEVEL: 'info',
      SIGNUP_FREE_CLICKS_AFTER_VERIFICATION: 'true',
      BOOTSTRAP_ADMIN_USERNAME: SYSTEM_ADMIN.username,
      BOOTSTRAP_ADMIN_EMAIL: SYSTEM_ADMIN.email,
      BOOTSTRAP_ADMIN_PASSWORD: SYSTEM_ADMIN.password,
    },
    log: () => undefined,
  });
  project.provide('system', {
    gatewayUrl: system.gatewayUrl,
    logsDir: join(dir, 'logs'),
    urls: system.urls as Record<string, string>,
    mailUrl: system.mail?.uiUrl ?? '',
    databaseUrls: system.databaseUrls as Record<string, string>,
  });
  return () => system.stop();
}
