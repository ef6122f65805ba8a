// What a test file knows about the running system, and its way to ask the global setup for faults.
import { expect, inject } from 'vitest';
import { emptyFigures, type Figures, type Recovery } from './figures.js';

export interface SuiteContext {
  gatewayUrl: string;
  /**
   * Where each process answers /healthz, /readyz and /metrics: a service's own port, the gateway's internal
   * listener (reachable from this machine only); `gatewayUrl` is the public port.
   */
  urls: Record<string, string>;
  deployables: string[];
  /** Each service's own database, for read-only checks where only the database can tell. */
  databaseUrls: Record<string, string>;
  redisUrl: string;
  /** Each service's own Redis URL (its ACL user): its own keys and commands only. */
  redisUrls: Record<string, string>;
  natsUrl: string;
  /** Each service's own NATS URL (its user and password): what it may publish and read is its own. */
  natsUrls: Record<string, string>;
  keys: { publicKey: string; privateKey: string };
  /** Each service's internal-call key pair (its SERVICE_PRIVATE_KEY and the public key the others hold). */
  serviceKeys: Record<'auth' | 'game' | 'payments', { publicKey: string; privateKey: string }>;
  /** Where each service answers its internal routes: its port, and the game's internal listener too. */
  callUrls: Record<'auth' | 'game' | 'payments' | 'game:internal', string>;
  admin: { username: string; email: string; password: string };
  /** A second admin, who approves the grants the tests ask of the admin (two-admin rule, docs/auth.md). */
  deputy: { username: string; email: string; password: string };
  controlUrl: string;
  /** The mail catcher's inbox API (maildev: GET /email), where auth's mail arrives. */
  mailUrl: string;
  logsDir: string;
  env: Record<string, string>;
}

declare module 'vitest' {
  export interface ProvidedContext {
    reliability: SuiteContext;
  }
}

export function suite(): SuiteContext {
  return inject('reliability');
}

async function control(path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${suite().controlUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json().catch(() => ({}))) as { message?: string };
  if (!response.ok) throw new Error(`control ${path} failed: ${answer.message ?? response.status}`);
  return answer;
}

export type FaultTarget =
  | 'postgres'
  | 'redis'
  | 'nats'
  | 'emulators'
  | 'auth'
  | 'game'
  | 'payments'
  | 'realtime'
  | 'gateway'
  | 'maildev';

/** Stops one part: a native server by PID, or a process (SIGKILL by default, a crash). */
export async function stopPart(
  target: FaultTarget,
  signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL',
  wipe = false,
): Promise<void> {
  await control('/stop', { target, signal, wipe });
}

/** Starts it again on the same port with the same data and environment. */
export async function restartPart(target: FaultTarget): Promise<void> {
  await control('/restart', { target });
}

/** Stalls a native server (every process of it SIGSTOPped) until `resumePart`. */
export async function pausePart(target: 'postgres' | 'redis' | 'nats'): Promise<void> {
  await control('/pause', { target });
}

export async function resumePart(target: 'postgres' | 'redis' | 'nats'): Promise<void> {
  await control('/resume', { target });
}

/** Starts another gateway in front of the same services with other settings; stopped at the end of the suite. */
export async function extraGateway(env: Record<string, string>): Promise<string> {
  return ((await control('/extra-gateway', { env })) as { url: string }).url;
}

/** This file's share of the figures; `reportFigures` sends it to the global setup (once, in afterAll). */
export const figures: Figures = emptyFigures();

export function recordRecovery(recovery: Recovery): void {
  figures.recoveries.push(recovery);
}

export async function reportFigures(): Promise<void> {
  await control('/figures', figures);
  Object.assign(figures, emptyFigures());
  violationTests.length = 0;
}

/** Beside each of figures.violations: the test it was found in (undefined in a hook). */
const violationTests: (string | undefined)[] = [];
const currentTest = (): string | undefined => expect.getState().currentTestName;

/** Checks one invariant: counts it, and records a violation (with the detail) when it does not hold. */
export function invariant(name: string, holds: boolean, detail: unknown = ''): boolean {
  figures.invariantsChecked += 1;
  if (!holds) {
    figures.violations.push(
      `${name}${detail === '' ? '' : `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`}`,
    );
    violationTests.push(currentTest());
  }
  return holds;
}

/**
 * The violations this test found, and those found outside any test (in a hook), so a test ends with
 * expect(violations()).toEqual([]) and one violation fails only the test in which it happened.
 */
export function violations(): string[] {
  const test = currentTest();
  return figures.violations.filter((_, i) => violationTests[i] === undefined || violationTests[i] === test);
}
