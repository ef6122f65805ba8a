// The open tunnels: joining a client to its instance, and closing them all in slices when the gateway
// stops, so their clients reconnect (to another gateway) a few at a time.
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

const DRAIN_SLICE_MS = 250;

export class OpenTunnels {
  /** Both ends of every open tunnel. */
  private readonly ends = new Set<Duplex>();
  /** The client side of each open tunnel: closing it closes the tunnel. */
  private readonly clients = new Set<Duplex>();

  get count(): number {
    return this.ends.size / 2;
  }

  /**
   * Sends the client the instance's `first` bytes and pipes the two together until either ends;
   * `release` runs when the tunnel closes.
   */
  join(client: Duplex, upstream: Socket, first: Buffer, release: () => void): void {
    client.write(first);
    this.ends.add(client).add(upstream);
    this.clients.add(client);
    const close = () => {
      release();
      this.ends.delete(client);
      this.ends.delete(upstream);
      this.clients.delete(client);
      client.destroy();
      upstream.destroy();
    };
    upstream.on('error', close).on('close', close);
    client.on('error', close).on('close', close);
    upstream.pipe(client);
    client.pipe(upstream);
  }

  /** Closes the tunnels in slices over `drainMs`, then whatever is still open. */
  async closeAll(drainMs: number): Promise<void> {
    const clients = [...this.clients];
    let slices = Math.max(1, Math.floor(drainMs / DRAIN_SLICE_MS));
    while (clients.length > 0) {
      for (const socket of clients.splice(0, Math.ceil(clients.length / slices))) socket.destroy();
      slices = Math.max(1, slices - 1);
      if (clients.length > 0) await new Promise((resolve) => setTimeout(resolve, DRAIN_SLICE_MS));
    }
    for (const socket of this.ends) socket.destroy();
  }
}
