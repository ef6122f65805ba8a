// Realtime processes of the bench's own beside the system's, behind a gateway of their own (same code
// and settings as the system's): the crowd scenarios kill, restart and add them at will.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, serviceBundle } from '@omc/infra';
import { stopChild, waitReady, type BenchSystem } from './bench-system.js';
import { cpuSeconds } from './proc.js';

export interface FleetMember {
  name: string;
  url: string;
  port: number;
  child: ChildProcess;
}

export interface RealtimeFleet {
  /** The fleet's gateway: its /socket.io tunnels to the members, its /api goes to the system's services. */
  gatewayUrl: string;
  members: FleetMember[];
  /** Sends `signal` to member `i` and waits for it to exit. */
  stopMember(i: number, signal: NodeJS.Signals): Promise<void>;
  /**
   * Replaces member `i` as the deployment rolls realtime out (maxSurge, maxUnavailable 0): its successor
   * is started on the spare port and ready before the member gets SIGTERM (the drain) and exits; the
   * member's port is the spare from then on. Needs `spare` in the options.
   */
  replaceMember(i: number): Promise<void>;
  /** CPU seconds used so far by the live members. */
  cpu(): number;
  /** Sockets each member holds now (null: not answering). */
  sockets(): Promise<(number | null)[]>;
  stop(): Promise<void>;
}

/** A deployable started as the system's own processes are: from its bundle (@omc/infra bundles.ts). */
async function spawnBundled(root: string, dir: string, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  return spawn(process.execPath, [await serviceBundle(root, join(root, dir))], {
    cwd: join(root, dir),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Sends `signal` to a live child and waits for it to exit. */
async function signalAndWait(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid!, signal);
  await exited;
}

export async function startRealtimeFleet(
  root: string,
  bs: BenchSystem,
  options: {
    count: number;
    env?: NodeJS.ProcessEnv;
    label: string;
    /** A directory where each member writes a CPU profile when it stops (BENCH_REALTIME_CPU_PROF). */
    cpuProfDir?: string;
    /** A port the gateway lists beside the members' for a member's successor (replaceMember). */
    spare?: boolean;
  },
): Promise<RealtimeFleet> {
  const realtime = bs.process('realtime');
  const gateway = bs.process('gateway');
  const logs = createWriteStream(join(root, '.data', 'bench', 'logs', `fleet-${options.label}.log`), {
    flags: 'a',
  });
  const spawnLogged = async (dir: string, env: NodeJS.ProcessEnv) => {
    const child = await spawnBundled(root, dir, env);
    child.stdout?.pipe(logs, { end: false });
    child.stderr?.pipe(logs, { end: false });
    return child;
  };
  if (options.cpuProfDir) mkdirSync(options.cpuProfDir, { recursive: true });
  const members: FleetMember[] = [];
  const startMember = async (
    name: string,
    port: number,
    spawned: (member: FleetMember) => void = () => undefined,
  ): Promise<FleetMember> => {
    const profile = options.cpuProfDir
      ? {
          NODE_OPTIONS: `--import ${fileURLToPath(new URL('./cpu-profile.mjs', import.meta.url))}`,
          BENCH_CPU_PROFILE_FILE: join(options.cpuProfDir, `${name}-${Date.now()}.cpuprofile`),
        }
      : {};
    const child = await spawnLogged(realtime.deployable.dir, {
      ...realtime.env,
      ...options.env,
      ...profile,
      PORT: String(port),
      INSTANCE_NAME: name,
    });
    const member = { name, url: `http://127.0.0.1:${port}`, port, child };
    spawned(member);
    await waitReady(member.url, child, name);
    return member;
  };
  let gatewayChild: ChildProcess | undefined;
  const stop = async () => {
    if (gatewayChild) await stopChild(gatewayChild);
    await Promise.all(members.map((m) => stopChild(m.child)));
    logs.end();
  };
  try {
    const ports = await Promise.all(Array.from({ length: options.count }, () => freePort()));
    // Each member is listed as soon as it is spawned, so a start-up that fails stops the others too.
    await Promise.all(
      ports.map((port, i) => startMember(`bench-${options.label}-${i + 1}`, port, (m) => members.push(m))),
    );
    let spare = options.spare ? await freePort() : undefined;
    const [port, internalPort] = [await freePort(), await freePort()];
    gatewayChild = await spawnLogged(gateway.deployable.dir, {
      ...gateway.env,
      PORT: String(port),
      GATEWAY_PORT: String(port),
      GATEWAY_INTERNAL_PORT: String(internalPort),
      INSTANCE_NAME: `gateway-${options.label}`,
      REALTIME_URLS: [...members.map((m) => m.url), ...(spare ? [`http://127.0.0.1:${spare}`] : [])].join(
        ',',
      ),
    });
    await waitReady(`http://127.0.0.1:${internalPort}`, gatewayChild, `gateway of ${options.label}`);
    return {
      gatewayUrl: `http://127.0.0.1:${port}`,
      members,
      stopMember: (i, signal) => signalAndWait(members[i]!.child, signal),
      async replaceMember(i) {
        if (spare === undefined) throw new Error('replaceMember needs a fleet started with a spare port');
        const leaving = members[i]!;
        await startMember(`${leaving.name}-next`, spare, (started) => (members[i] = started));
        await signalAndWait(leaving.child, 'SIGTERM');
        spare = leaving.port;
      },
      cpu: () =>
        members.reduce((sum, m) => {
          if (m.child.exitCode !== null || m.child.signalCode !== null) return sum;
          try {
            return sum + cpuSeconds(m.child.pid!);
          } catch {
            return sum;
          }
        }, 0),
      sockets: () =>
        Promise.all(
          members.map(async (m) => {
            try {
              const text = await (await fetch(`${m.url}/metrics`)).text();
              const line = text.split('\n').find((l) => l.startsWith('realtime_sockets_connected'));
              return line ? Number(line.split(' ').at(-1)) : null;
            } catch {
              return null;
            }
          }),
        ),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
