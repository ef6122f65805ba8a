// The same three servers as containers, where a Docker engine answers (testcontainers).
import { spawnSync } from 'node:child_process';
import type { StartedTestContainer } from 'testcontainers';
import type { ServerHandle } from './native.js';

export function dockerAvailable(): boolean {
  const probe = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], {
    encoding: 'utf8',
    timeout: 5000,
  });
  return probe.status === 0 && probe.stdout.trim().length > 0;
}

export async function startContainers(): Promise<{
  postgres: ServerHandle;
  redis: ServerHandle;
  nats: ServerHandle;
}> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const started = await Promise.allSettled([
    new GenericContainer('postgres:16-alpine')
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
      .withCommand(['postgres', '-c', 'max_connections=400', '-c', 'fsync=off'])
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start(),
    new GenericContainer('redis:7-alpine')
      .withCommand(['redis-server', '--databases', '64'])
      .withExposedPorts(6379)
      .start(),
    new GenericContainer('nats:2-alpine')
      .withCommand(['-js'])
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
