// Picking a realtime instance for a websocket upgrade: round-robin, those not recently refused first;
// each is handed the upgrade in turn until one takes it.
import type { Socket } from 'node:net';
import { handOver, type Upstream } from './socket-handover.js';

export interface Picked {
  socket: Socket;
  /** The instance's first bytes: its answer to the upgrade, not yet sent to the client. */
  first: Buffer;
}

export function realtimeUpstreams(urls: string[]): Upstream[] {
  return urls.map((u) => {
    const url = new URL(u);
    return {
      host: url.hostname,
      port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
      downUntil: 0,
    };
  });
}

/** Upstreams in round-robin order, those not recently refused first (each call starts one further on). */
export function roundRobin(upstreams: Upstream[]): () => Upstream[] {
  let next = 0;
  return () => {
    const start = next++ % upstreams.length;
    const ordered = [...upstreams.slice(start), ...upstreams.slice(0, start)];
    const now = Date.now();
    return [...ordered.filter((u) => u.downUntil <= now), ...ordered.filter((u) => u.downUntil > now)];
  };
}

/** The first candidate that takes the upgrade, or null when every one refused it (each refusal reported). */
export async function pickUpstream(
  candidates: Upstream[],
  upgradeRequest: string,
  head: Buffer,
  refused: (upstream: Upstream, error: unknown) => void,
): Promise<Picked | null> {
  for (const upstream of candidates) {
    try {
      return await handOver(upstream, upgradeRequest, head);
    } catch (error) {
      refused(upstream, error);
    }
  }
  return null;
}
