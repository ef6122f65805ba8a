// The NATS server's users, generated from packages/contracts' BUS_USERS: one user per service with the
// subjects it may publish and subscribe to. Native servers get literal passwords; compose and Kubernetes
// read them from the environment ($NATS_<SERVICE>_PASSWORD, from Secrets) through docker/nats/nats.conf,
// which is this generator's output (tests/ops checks the file is current).
import { BUS_USERS, busPermissions, type BusUserName } from '@omc/contracts';
import { randomBytes } from 'node:crypto';

export const BUS_USER_NAMES = Object.keys(BUS_USERS) as BusUserName[];

/** The environment variable a deployed NATS server reads a service's password from. */
export const natsPasswordVariable = (name: BusUserName) => `NATS_${name.toUpperCase()}_PASSWORD`;

export function randomNatsPasswords(): Record<BusUserName, string> {
  return Object.fromEntries(
    BUS_USER_NAMES.map((name) => [name, randomBytes(18).toString('base64url')]),
  ) as Record<BusUserName, string>;
}

const list = (subjects: string[]) => `[${subjects.map((s) => JSON.stringify(s)).join(', ')}]`;

/**
 * The `authorization` block. `passwords` gives literal passwords (native servers); without it each
 * password is read from its environment variable. `openLoopback` adds a user with every permission for
 * clients that give no credentials: only for the loopback server of tests and development, where test
 * harnesses act as "someone with bus access"; never in compose or Kubernetes.
 */
export function natsAuthorization(
  options: { passwords?: Record<BusUserName, string>; openLoopback?: boolean } = {},
): string {
  const users = BUS_USER_NAMES.map((name) => {
    const { publish, publishDeny, subscribe } = busPermissions(name);
    const password = options.passwords
      ? JSON.stringify(options.passwords[name])
      : `$${natsPasswordVariable(name)}`;
    const responses = BUS_USERS[name].answersRequests ? ', allow_responses: true' : '';
    return [
      `    {`,
      `      user: ${JSON.stringify(name)}, password: ${password}`,
      `      permissions: {`,
      `        publish: { allow: ${list(publish)}${publishDeny.length > 0 ? `, deny: ${list(publishDeny)}` : ''} }`,
      `        subscribe: { allow: ${list(subscribe)} }${responses ? `\n        allow_responses: true` : ''}`,
      `      }`,
      `    }`,
    ].join('\n');
  });
  if (options.openLoopback)
    users.push(
      [
        `    {`,
        `      user: "loopback-tests", password: ${JSON.stringify(randomBytes(18).toString('base64url'))}`,
        `      permissions: { publish: { allow: [">"] }, subscribe: { allow: [">"] } }`,
        `    }`,
      ].join('\n'),
    );
  return [
    'authorization {',
    '  users = [',
    users.join('\n'),
    '  ]',
    '}',
    ...(options.openLoopback ? ['no_auth_user: "loopback-tests"'] : []),
    '',
  ].join('\n');
}

/** A service's NATS URL with its credentials (nats://user:password@host:port, each server of a list). */
export function natsUrlWithUser(url: string, user: string, password: string): string {
  return url
    .split(',')
    .map((server) => {
      const parsed = new URL(server.trim());
      parsed.username = encodeURIComponent(user);
      parsed.password = encodeURIComponent(password);
      return parsed.toString().replace(/\/$/, '');
    })
    .join(',');
}
