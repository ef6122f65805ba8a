// Starts the whole system as `npm start` does (free ports, throw-away data) with a short round, so the
// suite can play one to its end as SPEC's client would.
import { join } from 'node:path';
import { startSystem } from '@omc/infra';
import { workspaceRoot } from '@omc/testkit';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    system: { gatewayUrl: string; admin: { username: string; email: string; password: string } };
  }
}

/** The round's target and its one milestone: small, so a player can reach both in a test. */
export const SUITE_ENV = {
  ROUND_TARGET: '30',
  MILESTONES: '10:5',
  SIGNUP_FREE_CLICKS: '40',
  RATE_LIMIT_PER_IP: '0',
  CLICK_RATE_PER_USER: '1000',
  REGISTER_MAX_PER_IP: '0',
  LOG_LEVEL: 'warn',
};

export default async function setup(project: TestProject) {
  const root = workspaceRoot();
  const dir = join(root, '.data', 'test', `spec-client-${process.pid}`);
  const system = await startSystem({
    root,
    dir,
    persistent: false,
    ports: 'free',
    logs: 'files',
    env: SUITE_ENV,
    log: () => undefined,
  });
  project.provide('system', { gatewayUrl: system.gatewayUrl, admin: system.admin });
  return () => system.stop();
}
