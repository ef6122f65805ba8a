// The same three servers as containers, where a Docker engine answers (testcontainers).
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { StartedTestContainer } from 'testcontainers';
import type { ServerHandle } from './native.js';

export function dockerAvailable(): boolean {
  const probe = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], {
    encoding: 'utf8',
    timeout: 5000,
  });
  return probe.status === 0 && probe.stdout.trim().length > 0;
}

/** The images docker-compose.yml runs (the same server versions everywhere). */
export const CONTAINER_IMAGES = {
  postgres: 'postgres:17-alpine',
  redis: 'redis:7.4-alpine',
  nats: 'nats:2.11-alpine',
} as const;

export interface ContainerOptions {
  /**
   * Keep the data here on the host (npm start: `.data/dev/docker/{postgres,redis,nats}`), mounted into
   * each container, with Postgres' crash safety on; unset (tests), data lives and dies with the container
   * and Postgres runs without fsync.
   */
  dataDir?: string;
  /** Redis' append-only file, fsynced every second, as compose runs it. */
  redisAppendOnly?: boolean;
}

export async function startContainers(options: ContainerOptions = {}): Promise<{
  postgres: ServerHandle;
  redis: ServerHandle;
  nats: ServerHandle;
}> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const { dataDir } = options;
  const mount = (name: string, target: string) => {
    if (!dataDir) return [];
    const source = join(dataDir, name);
    mkdirSync(source, { recursive: true });
    return [{ source, target, mode: 'rw' as const }];
  };
  const started = await Promise.allSettled([
    new GenericContainer(CONTAINER_IMAGES.postgres)
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
      .withCommand([
        'postgres',
        '-c',
        'max_connections=400',
        ...(dataDir ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
      ])
      .withBindMounts(mount('postgres', '/var/lib/postgresql/data'))
      .withExposedPorts(5432)
      // Over TCP: the image's first-start initialisation listens on the socket only (and a data folder
      // kept from an earlier start skips it, so counting log lines would not do).
      .withWaitStrategy(Wait.forSuccessfulCommand('pg_isready -h 127.0.0.1 -U postgres'))
      .start(),
    new GenericContainer(CONTAINER_IMAGES.redis)
      .withCommand([
        'redis-server',
        '--databases',
        '64',
        '--maxmemory-policy',
        'noeviction',
        ...(options.redisAppendOnly ? ['--appendonly', 'yes', '--appendfsync', 'everysec'] : []),
        ...(dataDir ? ['--dir', '/data'] : []),
      ])
      .withBindMounts(mount('redis', '/data'))
      .withExposedPorts(6379)
      .start(),
    new GenericContainer(CONTAINER_IMAGES.nats)
      .withCommand(['-js', ...(dataDir ? ['--store_dir', '/data'] : [])])
      .withBindMounts(mount('nats', '/data'))
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start(),
  ]);
  // One that could not start (an image the engine cannot pull): the others are stopped, the error thrown.
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) {
    await Promise.allSettled(started.map((r) => (r.status === 'fulfilled' ? r.value.stop() : undefined)));
    throw failed.reason;
  }
  const [pg, redis, nats] = started.map((r) => (r as PromiseFulfilledResult<StartedTestContainer>).value) as [
    StartedTestContainer,
    StartedTestContainer,
    StartedTestContainer,
  ];
  const handle = (url: string, c: { stop(): Promise<unknown> }): ServerHandle => ({
    url,
    pid: 0,
    stop: async () => void (await c.stop()),
  });
  return {
    postgres: handle(`postgres://postgres@${pg.getHost()}:${pg.getMappedPort(5432)}/postgres`, pg),
    redis: handle(`redis://${redis.getHost()}:${redis.getMappedPort(6379)}`, redis),
    nats: handle(`nats://${nats.getHost()}:${nats.getMappedPort(4222)}`, nats),
  };
}
