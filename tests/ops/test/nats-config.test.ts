// The NATS server's users and permissions that compose and Kubernetes load are the ones packages/contracts'
// bus.ts defines (least privilege on the bus): docker/nats/nats.conf holds the generated authorization
// block, the dev overlay's copy is the same file, and every password comes from the environment.
import { natsAuthorization } from '@omc/infra';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../src/repo.js';

const composeConfig = readFileSync(join(ROOT, 'docker', 'nats', 'nats.conf'), 'utf8');

describe('NATS users', () => {
  it('holds the users and permissions bus.ts defines (regenerate: pnpm --filter @omc/infra nats-config)', () => {
    expect(composeConfig).toContain(natsAuthorization());
    expect(composeConfig).not.toContain('no_auth_user');
    for (const user of ['auth', 'game', 'payments', 'realtime'])
      expect(composeConfig).toContain(`password: $NATS_${user.toUpperCase()}_PASSWORD`);
  });

  it("gives the dev overlay's NATS the same file", () => {
    expect(readFileSync(join(ROOT, 'k8s', 'overlays', 'dev', 'nats', 'nats.conf'), 'utf8')).toBe(
      composeConfig,
    );
  });
});
