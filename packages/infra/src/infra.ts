// Makes PostgreSQL, Redis and NATS with JetStream available: URLs from the environment win; else a
// Docker engine (testcontainers); else Debian's native servers, installed when missing, on free loopback
// ports with their data in a git-ignored folder. Every server started here is stopped by its own PID.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BusUserName, RedisUserName } from '@omc/contracts';
import { dockerAvailable, startContainers } from './containers.js';
import { natsAuthorization, natsUrlWithUser, randomNatsPasswords } from './nats-config.js';
import { randomRedisPasswords, redisUrlWithUser } from './redis-acl.js';
import {
  ensureNativeServers,
  removeDir,
  startNats,
  startPostgres,
  startRedis,
  type ServerHandle,
} from './native.js';

export interface Infra {
  /** Server URL (database `postgres`); use withDatabase/ensureDatabase for a service's own database. */
  databaseUrl: string;
  redisUrl: string;
  natsUrl: string;
  /**
   * The NATS URL a service connects with: its own user and password where this NATS was started here
   * (each service may publish and read only its own subjects); `natsUrl` otherwise.
   */
  natsUrlFor(service: BusUserName): string;
  /**
   * The Redis URL a service connects with: its own ACL user where this Redis was started here (its own
   * keys and commands only); `redisUrl` otherwise. `redisUrl` itself is the harness's (every command).
   */
  redisUrlFor(service: RedisUserName): string;
  /** How each server was obtained, for the logs. */
  source: 'environment' | 'docker' | 'native' | 'mixed';
  /** Native servers' PIDs, so a test that injects faults can stop and restart them. */
  pids: { postgres?: number; redis?: number; nats?: number };
  /** Stops one native server by its PID, keeping its data (fault injection). */
  stopServer(name: ServerName): Promise<void>;
  /** Starts a stopped native server again on the same port with the same data. */
  restartServer(name: ServerName): Promise<void>;
  stop(): Promise<void>;
}

export type ServerName = 'postgres' | 'redis' | 'nats';

export interface InfraOptions {
  /** Folder for native servers' data. */
  dir: string;
  /** Keep data between runs (npm start) or throw it away on stop (tests). */
  persistent?: boolean;
  /** Redis append-only file (durability across a Redis restart). */
  redisAppendOnly?: boolean;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

/** Whether startInfra would run native servers: some URL is missing and no Docker engine is to be used. */
function usesNativeServers(env: NodeJS.ProcessEnv): boolean {
  const needed = [env.DATABASE_URL, env.REDIS_URL, env.NATS_URL].some((url) => !url);
  return needed && (env.OMC_INFRA === 'native' || !dockerAvailable());
}

/**
 * Installs the native servers startInfra may run, when missing (before anything runs side by side):
 * wherever some URL is missing, since even with an engine they are the fallback when it cannot pull.
 */
export function ensureInfraInstalled(
  env: NodeJS.ProcessEnv = process.env,
  log?: (line: string) => void,
): void {
  if ([env.DATABASE_URL, env.REDIS_URL, env.NATS_URL].some((url) => !url)) ensureNativeServers(log);
}

/** Debian's servers for each of the three no URL was given for, side by side; all or none. */
async function startNativeServers(
  options: InfraOptions,
  given: Record<ServerName, string | undefined>,
  users: { redisPasswords: Record<string, string>; natsConfig: string },
  log: (line: string) => void,
): Promise<Partial<Record<ServerName, ServerHandle>>> {
  const started: Partial<Record<ServerName, ServerHandle>> = {};
  ensureNativeServers(log);
  mkdirSync(options.dir, { recursive: true });
  const jobs: Promise<void>[] = [];
  if (!given.postgres)
    jobs.push(
      startPostgres(join(options.dir, 'postgres'), { durable: options.persistent }).then(
        (h) => void (started.postgres = h),
      ),
    );
  if (!given.redis)
    jobs.push(
      startRedis(join(options.dir, 'redis'), {
        appendOnly: options.redisAppendOnly,
        passwords: users.redisPasswords,
      }).then((h) => void (started.redis = h)),
    );
  if (!given.nats)
    jobs.push(
      startNats(join(options.dir, 'nats'), { config: users.natsConfig }).then((h) => void (started.nats = h)),
    );
  const results = await Promise.allSettled(jobs);
  const failure = results.find((r) => r.status === 'rejected');
  if (failure) {
    await Promise.allSettled(Object.values(started).map((h) => h.stop()));
    throw (failure as PromiseRejectedResult).reason;
  }
  return started;
}

export async function startInfra(options: InfraOptions): Promise<Infra> {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => console.log(line));
  const given = { postgres: env.DATABASE_URL, redis: env.REDIS_URL, nats: env.NATS_URL };
  const needed = Object.entries(given)
    .filter(([, url]) => !url)
    .map(([name]) => name);
  const handles: ServerHandle[] = [];
  const pids: Infra['pids'] = {};
  let source: Infra['source'] = 'environment';
  let started: Partial<Record<'postgres' | 'redis' | 'nats', ServerHandle>> = {};
  // A user per service (least privilege on the bus); clients without credentials (test harnesses) get
  // the loopback server's open user.
  const natsPasswords = randomNatsPasswords();
  const natsConfig = natsAuthorization({ passwords: natsPasswords, openLoopback: true });
  // The same in Redis: an ACL user per service; the harness keeps the loopback server's default user.
  const redisPasswords = randomRedisPasswords();

  if (needed.length > 0) {
    let native = usesNativeServers(env);
    if (!native) {
      source = needed.length === 3 ? 'docker' : 'mixed';
      log('[infra] starting PostgreSQL, Redis and NATS in Docker');
      try {
        started = await startContainers({
          dataDir: options.persistent ? join(options.dir, 'docker') : undefined,
          redisAppendOnly: options.redisAppendOnly,
        });
      } catch (error) {
        // An engine that answers but cannot pull (no registry) is no reason to fail: the native servers do.
        const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
        log(
          `[infra] warning: Docker answers but cannot start the servers (${reason}); using native servers instead`,
        );
        native = true;
      }
    }
    if (native) {
      source = needed.length === 3 ? 'native' : 'mixed';
      started = await startNativeServers(options, given, { redisPasswords, natsConfig }, log);
    }
    for (const [name, handle] of Object.entries(started)) {
      if (given[name as keyof typeof given]) {
        await handle.stop();
        continue;
      }
      handles.push(handle);
      if (handle.pid) pids[name as keyof typeof pids] = handle.pid;
    }
  }

  const starters: Record<ServerName, (port: number) => Promise<ServerHandle>> = {
    postgres: (port) => startPostgres(join(options.dir, 'postgres'), { port, durable: options.persistent }),
    redis: (port) =>
      startRedis(join(options.dir, 'redis'), {
        appendOnly: options.redisAppendOnly,
        port,
        passwords: redisPasswords,
      }),
    nats: (port) => startNats(join(options.dir, 'nats'), { port, config: natsConfig }),
  };
  const ownHandle = (name: ServerName) => {
    const handle = started[name];
    if (!handle || source === 'docker' || source === 'environment' || !handles.includes(handle)) {
      throw new Error(`${name} was not started natively here; it cannot be stopped or restarted by PID`);
    }
    return handle;
  };

  return {
    databaseUrl: given.postgres ?? started.postgres!.url,
    redisUrl: given.redis ?? started.redis!.url,
    natsUrl: given.nats ?? started.nats!.url,
    natsUrlFor: (service) =>
      !given.nats && handles.includes(started.nats!)
        ? natsUrlWithUser(started.nats!.url, service, natsPasswords[service])
        : (given.nats ?? started.nats!.url),
    // Native servers only, as for NATS: containers run without the users.
    redisUrlFor: (service) =>
      !given.redis && source !== 'docker' && handles.includes(started.redis!) && started.redis!.pid > 0
        ? redisUrlWithUser(started.redis!.url, service, redisPasswords[service])
        : (given.redis ?? started.redis!.url),
    source,
    pids,
    async stopServer(name) {
      await ownHandle(name).stop();
    },
    async restartServer(name) {
      const old = ownHandle(name);
      const fresh = await starters[name](Number(new URL(old.url).port));
      handles[handles.indexOf(old)] = fresh;
      started[name] = fresh;
      pids[name] = fresh.pid;
    },
    async stop() {
      await Promise.allSettled(handles.map((h) => h.stop()));
      if (!options.persistent) removeDir(options.dir);
    },
  };
}
