// One host opening websocket after websocket, through the gateway and straight at realtime (as the
// Kubernetes ingress sends /socket.io): each holds WS_MAX_PER_IP of them and refuses the next with the
// reason, and the connected-user count shows one person, not a crowd.
import { SOCKET_CLIENT_OPTIONS } from '@omc/contracts';
import { io, type Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { figures, invariant, reportFigures, suite } from '../src/context.js';

/** The services' default WS_MAX_PER_IP; the suite leaves it as shipped. */
const CAP = 50;

afterAll(reportFigures);

/** Opens sockets from this host until one is refused; returns how many were held and the refusal. */
async function flood(
  url: string,
  limit: number,
): Promise<{ held: Socket[]; refusal: string; counts: number[] }> {
  const held: Socket[] = [];
  const counts: number[] = [];
  for (let i = 0; i < limit; i += 1) {
    const socket = io(url, { ...SOCKET_CLIENT_OPTIONS, reconnection: false, forceNew: true });
    figures.socketsOpened += 1;
    figures.attacks += 1;
    socket.on('userCountUpdate', (count: number) => counts.push(count));
    const outcome = await new Promise<string | null>((resolve) => {
      socket.once('connect', () => resolve(null));
      socket.once('connect_error', (error) => resolve(error.message));
    });
    if (outcome !== null) {
      socket.close();
      return { held, refusal: outcome, counts };
    }
    held.push(socket);
  }
  return { held, refusal: '', counts };
}

describe('a flood of websockets from one address', () => {
  it('is held to WS_MAX_PER_IP through the gateway and at realtime itself, and counts as one person', async () => {
    let viaGateway = await flood(suite().gatewayUrl, CAP + 5);
    if (viaGateway.held.length < CAP) {
      // A socket of this host's that died with its realtime (the faults file crashes one) keeps its slot
      // until its lease ends (WS_LEASE_MS): wait that out once, then flood again.
      for (const s of viaGateway.held) s.close();
      await new Promise((r) => setTimeout(r, Number(suite().env.WS_LEASE_MS ?? 30_000) + 1_000));
      viaGateway = await flood(suite().gatewayUrl, CAP + 5);
    }
    try {
      figures.socketsOneAddressHolds = viaGateway.held.length;
      invariant(
        'one address holds at most WS_MAX_PER_IP sockets through the gateway',
        viaGateway.held.length === CAP,
        `${viaGateway.held.length} held`,
      );
      expect(viaGateway.held.length).toBe(CAP);
      // The gateway refuses the upgrade (HTTP 429); the client sees a failed websocket.
      expect(viaGateway.refusal).not.toBe('');
      // All from one host: one person in the count (the suite's other sockets are closed by now).
      const last = viaGateway.counts.at(-1);
      invariant(
        'many sockets from one address count as one person',
        last !== undefined && last <= 2,
        `count ${last}`,
      );
    } finally {
      for (const s of viaGateway.held) s.close();
    }

    const realtimeUrl = suite().urls.realtime;
    if (!realtimeUrl) return;
    await new Promise((r) => setTimeout(r, 500));
    const direct = await flood(realtimeUrl, CAP + 5);
    try {
      invariant(
        'one address holds at most WS_MAX_PER_IP sockets at realtime',
        direct.held.length === CAP,
        `${direct.held.length} held`,
      );
      expect(direct.held.length).toBe(CAP);
      expect(direct.refusal).toBe(`Too many connections from your address (at most ${CAP})`);
    } finally {
      for (const s of direct.held) s.close();
    }
  });
});
