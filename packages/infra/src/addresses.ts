// Where each process of the system listens: default ports (npm start) or free ones (tests, benchmarks),
// several instances of a part named `<part>-2`, `<part>-3`, ..., and one round-robin balancer in front
// of each part that runs several (realtime aside: the gateway spreads over its instances itself).
import { startBalancer, type Balancer } from './balancer.js';
import type { Deployable, DeployableName } from './deployables.js';
import { freePort } from './native.js';

export interface AddressOptions {
  ports: 'default' | 'free';
  instances?: Partial<Record<DeployableName, number>>;
  realtimeInstances?: number;
}

export interface Addresses {
  /** Port by process name, `<name>:internal` (the gateway's internal listener), `<name>:calls` (the game's). */
  ports: Map<string, number>;
  instanceNames(d: Deployable): string[];
  instanceUrl(name: string): string;
  /** Where a process's /healthz, /readyz and /metrics answer. */
  internalUrl(name: string): string;
  realtimeUrls: string[];
}

export async function planAddresses(
  present: readonly Deployable[],
  options: AddressOptions,
): Promise<Addresses> {
  const ports = new Map<string, number>();
  const countOf = (d: Deployable) =>
    Math.max(
      1,
      options.instances?.[d.name] ?? (d.name === 'realtime' ? (options.realtimeInstances ?? 1) : 1),
    );
  const instanceNames = (d: Deployable) =>
    Array.from({ length: countOf(d) }, (_, i) => (i === 0 ? d.name : `${d.name}-${i + 1}`));
  const port = async (preferred: number) => (options.ports === 'default' ? preferred : await freePort());
  for (const d of present) {
    for (const [i, name] of instanceNames(d).entries()) {
      ports.set(name, await port(d.defaultPort + (i === 0 ? 0 : 100 + i)));
      if (d.internalPort) ports.set(`${name}:internal`, await port(d.internalPort));
      // The game's listener for auth's calls (its INTERNAL_PORT).
      if (d.callsPort) ports.set(`${name}:calls`, await port(d.callsPort));
    }
  }
  const instanceUrl = (name: string) => `http://127.0.0.1:${ports.get(name)}`;
  return {
    ports,
    instanceNames,
    instanceUrl,
    internalUrl: (name) => instanceUrl(ports.has(`${name}:internal`) ? `${name}:internal` : name),
    realtimeUrls: [...ports.keys()]
      .filter((n) => n.startsWith('realtime') && !n.endsWith(':internal'))
      .map(instanceUrl),
  };
}

/** A balancer in front of each part (but realtime) that runs several processes. */
export async function startBalancers(
  present: readonly Deployable[],
  addresses: Addresses,
): Promise<Partial<Record<DeployableName, Balancer>>> {
  const balancers: Partial<Record<DeployableName, Balancer>> = {};
  for (const d of present) {
    const names = addresses.instanceNames(d);
    if (d.name === 'realtime' || names.length < 2) continue;
    balancers[d.name] = await startBalancer(names.map((n) => addresses.ports.get(n)!));
  }
  return balancers;
}
