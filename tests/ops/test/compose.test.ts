// docker-compose.yml: valid for Docker Compose (checked by docker-compose itself), and the same system as
// `npm start`: the servers with durable storage, the emulators, every service and the gateway on 8080,
// started in order through health checks, hardened, with no committed secret.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTAINER_IMAGES, redisPasswordVariable, redisUserArgs } from '@omc/infra';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  composeConfig,
  ensureDockerCompose,
  interpolateDefaults,
  readCompose,
  type ComposeService,
} from '../src/compose.js';
import { DEPLOYABLES, ROOT } from '../src/repo.js';
import { realLookingSecret } from '../src/secrets.js';
import { parseYamlDocuments } from '../src/yaml.js';

const compose = readCompose();
const natsConf = readFileSync(join(ROOT, 'docker', 'nats', 'nats.conf'), 'utf8');
const service = (name: string): ComposeService => {
  const s = compose.services[name];
  if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
  return s;
};
const env = (s: ComposeService) =>
  Object.fromEntries(
    Object.entries(s.environment ?? {}).map(([k, v]) => [
      k,
      v === null ? null : interpolateDefaults(String(v)),
    ]),
  );
const dependsOn = (s: ComposeService) =>
  Array.isArray(s.depends_on)
    ? Object.fromEntries(s.depends_on.map((n) => [n, { condition: 'service_started' }]))
    : (s.depends_on ?? {});

describe('docker-compose config', () => {
  let version = '';
  beforeAll(() => {
    version = ensureDockerCompose((line) => console.log(line));
    console.log(`[ops] validating docker-compose.yml with docker-compose ${version}`);
  });

  it('accepts the file (schema, interpolation, references)', () => {
    const result = composeConfig(['-q']);
    expect(result.stderr + result.stdout, 'docker-compose config -q').toBe('');
    expect(result.status).toBe(0);
  });

  it('resolves every service the suite expects', () => {
    const result = composeConfig(['--services']);
    expect(result.status).toBe(0);
    const services = result.stdout.trim().split('\n').sort();
    expect(services).toEqual(
      ['postgres', 'redis', 'nats', 'jwt-keys', ...DEPLOYABLES.map((d) => d.name)].sort(),
    );
  });

  it('refuses a broken file, so a pass means something', () => {
    const broken = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8').replace(
      'condition: service_healthy',
      'condition: whenever',
    );
    const file = join(ROOT, '.data', 'ops-broken-compose.yml');
    mkdirSync(join(ROOT, '.data'), { recursive: true });
    writeFileSync(file, broken);
    const result = spawnSync('docker-compose', ['--project-directory', ROOT, '-f', file, 'config', '-q'], {
      encoding: 'utf8',
    });
    rmSync(file);
    expect(result.status).not.toBe(0);
  });
});

describe('docker-compose.yml', () => {
  it('runs PostgreSQL with one database per service, created by the init script', () => {
    const postgres = service('postgres');
    expect(interpolateDefaults(postgres.image!)).toMatch(/^postgres:\d+/);
    const init = postgres.volumes!.find((v) => v.includes('/docker-entrypoint-initdb.d/'))!;
    const sql = readFileSync(join(ROOT, init.split(':')[0]!), 'utf8');
    for (const d of DEPLOYABLES.filter((x) => x.database))
      expect(sql).toContain(`CREATE DATABASE ${d.database};`);
    expect(postgres.volumes!.some((v) => v.startsWith('postgres-data:'))).toBe(true);
  });

  it('runs PostgreSQL under an init, probed without a shell, with room for every replica', () => {
    const postgres = service('postgres');
    // PID 1 adopts orphans; a postmaster that reaps one exiting non-zero restarts into crash recovery.
    expect(postgres.init).toBe(true);
    // The init runs as the container's user: the image's, so no process of it is root.
    expect(postgres.user).toBe('postgres');
    expect(postgres.healthcheck!.test[0]).toBe('CMD');
    expect(postgres.command).toEqual(['postgres', '-c', 'max_connections=300']);
    expect(postgres.shm_size).toBe('256mb');
  });

  it('runs Redis as its own user, its probe too', () => {
    expect(service('redis').user).toBe('redis');
    expect(service('redis').healthcheck!.test[0]).toBe('CMD');
  });

  it('runs Redis with a user per service, as REDIS_USERS defines them, and a default user that may only PING', () => {
    const command = service('redis').command as string[];
    const users = redisUserArgs(
      (n) => `\${${redisPasswordVariable(n)}:-dev-only-${n}-redis}`,
      '${REDIS_ADMIN_PASSWORD:-dev-only-admin-redis}',
    );
    expect(command.slice(command.indexOf('--user'))).toEqual(users);
    expect(users.slice(0, 6)).toEqual(['--user', 'default', 'reset', 'on', 'nopass', '+ping']);
    // Every user but the operators' admin (last; no service holds its password) is limited.
    const admin = users.lastIndexOf('--user');
    expect(users[admin + 1]).toBe('admin');
    for (const forbidden of ['+@all', '~*', '+flushall', '+config', '+keys', '+@dangerous'])
      expect(users.slice(0, admin), forbidden).not.toContain(forbidden);
    for (const d of DEPLOYABLES)
      expect(JSON.stringify(service(d.name).environment ?? {}), d.name).not.toContain('REDIS_ADMIN_PASSWORD');
    expect(service('redis').healthcheck!.test).toEqual(['CMD', 'redis-cli', 'ping']);
  });

  it('runs Redis with the append-only file on a volume', () => {
    const redis = service('redis');
    expect(redis.command).toEqual(expect.arrayContaining(['--appendonly', 'yes']));
    expect(redis.volumes).toContain('redis-data:/data');
  });

  it('runs NATS with JetStream storing to a volume', () => {
    const nats = service('nats');
    // JetStream and its store are set in the mounted file, once (a flag repeating one is refused).
    expect(nats.command).toEqual(['nats-server', '--config', '/etc/nats/nats.conf']);
    expect(nats.volumes).toContain('./docker/nats/nats.conf:/etc/nats/nats.conf:ro');
    expect(natsConf).toMatch(/jetstream \{\s*store_dir: "\/data"/);
    expect(nats.volumes).toContain('nats-data:/data');
    expect(Object.keys(compose.volumes ?? {})).toEqual(
      expect.arrayContaining(['postgres-data', 'redis-data', 'nats-data']),
    );
  });

  it.each(DEPLOYABLES.map((d) => [d.name, d] as const))(
    'builds and runs %s from its Dockerfile on its default port',
    (_n, d) => {
      const s = service(d.name);
      // The one shared Dockerfile, the package and its port as build arguments.
      expect(s.build).toEqual({
        context: '.',
        dockerfile: 'docker/Dockerfile',
        target: d.name === 'gateway' ? 'gateway' : 'service',
        args: {
          NODE_IMAGE: '${NODE_IMAGE:-node:22-bookworm-slim}',
          PACKAGE_DIR: d.dir,
          PORT: String(d.defaultPort),
        },
      });
      expect(s.image).toBe(`omc/${d.name}:dev`);
      expect(env(s).PORT).toBe(String(d.defaultPort));
      const exposed = [...(s.expose ?? []).map(String), ...(s.ports ?? []).map((p) => p.split(':').at(-1)!)];
      expect(exposed).toContain(String(d.defaultPort));
      // The image's own command runs: the package's start script.
      expect(s.command).toBeUndefined();
    },
  );

  it('publishes the gateway, and only the gateway, on 8080', () => {
    expect(interpolateDefaults(service('gateway').ports![0]!)).toBe('8080:8080');
    const published = Object.entries(compose.services)
      .filter(([, s]) => (s.ports ?? []).length > 0)
      .map(([n]) => n);
    expect(published).toEqual(['gateway']);
  });

  it('gives each service with tables its own database, and every service the shared servers it uses', () => {
    for (const d of DEPLOYABLES.filter((x) => x.name !== 'emulators')) {
      const e = env(service(d.name));
      if (d.database) expect(new URL(e.DATABASE_URL!).pathname).toBe(`/${d.database}`);
      else expect(e.DATABASE_URL).toBeUndefined();
      // Payments keeps nothing in Redis (docs/payments.md): only the others are given it, each as its own
      // Redis user (least privilege in Redis).
      if (d.name === 'payments') expect(e.REDIS_URL).toBeUndefined();
      else expect(e.REDIS_URL).toBe(`redis://${d.name}:dev-only-${d.name}-redis@redis:6379`);
      // Each service as its own NATS user (least privilege on the bus); the gateway uses no NATS.
      if (d.name === 'gateway') expect(e.NATS_URL).toBeUndefined();
      else
        expect(interpolateDefaults(e.NATS_URL!)).toBe(`nats://${d.name}:dev-only-${d.name}-nats@nats:4222`);
      expect(e.JWT_PUBLIC_KEY_FILE).toBe('/run/omc-keys/jwt-public.pem');
      expect(e.JWT_PRIVATE_KEY_FILE === undefined).toBe(d.name !== 'auth');
      if (e.JWT_PRIVATE_KEY_FILE) expect(e.JWT_PRIVATE_KEY_FILE).toBe('/run/omc-private/jwt-private.pem');
    }
  });

  it('wires the services to each other by their compose names and ports', () => {
    const port = (name: string) => DEPLOYABLES.find((d) => d.name === name)!.defaultPort;
    const gateway = env(service('gateway'));
    expect(gateway.AUTH_URL).toBe(`http://auth:${port('auth')}`);
    expect(gateway.GAME_URL).toBe(`http://game:${port('game')}`);
    expect(gateway.PAYMENTS_URL).toBe(`http://payments:${port('payments')}`);
    expect(gateway.REALTIME_URLS).toBe(`http://realtime:${port('realtime')}`);
    const payments = env(service('payments'));
    expect(payments.BRAINTREE_EMULATOR_URL).toBe(`http://emulators:${port('emulators')}`);
    expect(payments.PAYPAL_API_URL).toBe(`http://emulators:${port('emulators')}`);
  });

  it('starts everything through health checks, in dependency order', () => {
    for (const [name, s] of Object.entries(compose.services)) {
      if (name !== 'jwt-keys') expect(s.healthcheck, `${name} healthcheck`).toBeDefined();
      for (const [dependency, { condition }] of Object.entries(dependsOn(s))) {
        expect(compose.services[dependency], `${name} depends on ${dependency}`).toBeDefined();
        expect(condition, `${name} -> ${dependency}`).toBe(
          dependency === 'jwt-keys' ? 'service_completed_successfully' : 'service_healthy',
        );
      }
    }
    // Readiness, not liveness: a service is healthy for its dependents once /readyz answers 200.
    // The gateway's readiness answers on its internal port, which is never published.
    for (const d of DEPLOYABLES)
      expect(JSON.stringify(service(d.name).healthcheck!.test)).toContain(
        `:${d.internalPort ?? d.defaultPort}/readyz`,
      );
    expect(env(service('gateway')).GATEWAY_INTERNAL_PORT).toBe('9080');
    expect(JSON.stringify(service('gateway').ports)).not.toContain('9080');
    const needs = (name: string) => Object.keys(dependsOn(service(name)));
    expect(needs('gateway')).toEqual(expect.arrayContaining(['auth', 'game', 'payments', 'realtime']));
    expect(needs('payments')).toEqual(
      expect.arrayContaining(['postgres', 'redis', 'nats', 'emulators', 'jwt-keys']),
    );
    for (const name of ['auth', 'game'])
      expect(needs(name)).toEqual(expect.arrayContaining(['postgres', 'redis', 'nats', 'jwt-keys']));
  });

  it("runs the system read-only, without capabilities or privilege escalation, as the images' non-root user", () => {
    for (const d of DEPLOYABLES) {
      const s = service(d.name);
      expect(s.read_only, d.name).toBe(true);
      expect(s.tmpfs).toContain('/tmp');
      expect(s.cap_drop).toEqual(['ALL']);
      expect(s.security_opt).toContain('no-new-privileges:true');
      expect(s.user).toBeUndefined();
    }
  });

  it('names every base image by a variable whose default is the upstream image', () => {
    const expected: Record<string, [string, RegExp]> = {
      postgres: ['POSTGRES_IMAGE', /^postgres:\d+/],
      redis: ['REDIS_IMAGE', /^redis:\d/],
      nats: ['NATS_IMAGE', /^nats:\d/],
      'jwt-keys': ['NODE_IMAGE', /^node:\d+-bookworm-slim$/],
    };
    for (const [name, [variable, upstream]] of Object.entries(expected)) {
      const image = service(name).image!;
      expect(image, name).toMatch(new RegExp(`^\\$\\{${variable}:-`));
      expect(interpolateDefaults(image), name).toMatch(upstream);
    }
  });

  it('runs the servers on a read-only root too, their data on volumes', () => {
    for (const name of ['postgres', 'redis', 'nats', 'jwt-keys'])
      expect(service(name).read_only, name).toBe(true);
  });

  it('runs the same server versions as npm start does on a Docker engine', () => {
    for (const name of ['postgres', 'redis', 'nats'] as const)
      expect(interpolateDefaults(service(name).image!), name).toBe(CONTAINER_IMAGES[name]);
  });

  it('generates the development JWT keys instead of committing them', () => {
    const keys = service('jwt-keys');
    const script = (keys.command as string[]).join('\n');
    expect(script).toContain("generateKeyPairSync('ed25519')");
    expect(script).toContain('fs.existsSync');
    expect(keys.volumes).toEqual(
      expect.arrayContaining(['public-keys:/keys/public', 'auth-keys:/keys/auth', 'game-keys:/keys/game']),
    );
    expect(script).toContain("jwt: 'auth'");
  });

  it("mounts into each container the public keys and its own private keys, never another's", () => {
    const owners: Record<string, string> = {
      auth: 'auth-keys',
      game: 'game-keys',
      payments: 'payments-keys',
    };
    for (const d of DEPLOYABLES.filter((x) => x.name !== 'emulators')) {
      const volumes = (service(d.name).volumes ?? []).map(String);
      const own = owners[d.name];
      expect(volumes.sort(), d.name).toEqual(
        ['public-keys:/run/omc-keys:ro', ...(own ? [`${own}:/run/omc-private:ro`] : [])].sort(),
      );
      // Every private key file it is told of is in its own folder.
      for (const [key, value] of Object.entries(env(service(d.name))))
        if (/PRIVATE_KEY_FILE$/.test(key)) expect(value, `${d.name} ${key}`).toMatch(/^\/run\/omc-private\//);
    }
    expect(service('emulators').volumes ?? []).toEqual([]);
  });

  it('commits no secret: credentials are development-only defaults or generated', () => {
    const text = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
    expect(text).not.toContain('-----BEGIN');
    for (const [name, s] of Object.entries(compose.services)) {
      for (const [key, value] of Object.entries(s.environment ?? {})) {
        if (value === null || !/PASSWORD|SECRET|PRIVATE|TOKEN|_URL$/.test(key) || key.endsWith('_FILE'))
          continue;
        expect(realLookingSecret(`${name}.${key}`, interpolateDefaults(String(value)))).toBeUndefined();
      }
    }
  });

  it('parses as YAML with anchors resolved the way compose resolves them', () => {
    const [document] = parseYamlDocuments(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'));
    expect(
      (document as { services: Record<string, ComposeService> }).services.game!.environment!.ROUND_TARGET,
    ).toBe('${ROUND_TARGET:-1000000}');
  });
});
