// A small TCP round-robin balancer, as a Kubernetes Service spreads connections over a Deployment's pods:
// each new connection goes to the next backend; a backend that refuses the connection is skipped for
// that connection (the next one is tried), so a killed replica costs the connections it held and nothing
// more. HTTP keep-alive and WebSocket connections stay on the backend they were opened on.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface Balancer {
  url: string;
  port: number;
  /** Connections made to each backend so far, by its port. */
  connections: Map<number, number>;
  stop(): Promise<void>;
}

export async function startBalancer(backendPorts: readonly number[], port = 0): Promise<Balancer> {
  if (backendPorts.length === 0) throw new Error('a balancer needs at least one backend');
  let next = 0;
  const connections = new Map<number, number>(backendPorts.map((p) => [p, 0]));
  const open = new Set<Socket>();

  const attach = (client: Socket, attempt: number) => {
    if (attempt >= backendPorts.length) {
      client.destroy();
      return;
    }
    const backendPort = backendPorts[next++ % backendPorts.length]!;
    const upstream = connect({ host: '127.0.0.1', port: backendPort });
    open.add(upstream);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      connections.set(backendPort, (connections.get(backendPort) ?? 0) + 1);
      client.once('close', () => upstream.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    upstream.on('error', () => {
      if (!connected) attach(client, attempt + 1);
      else client.destroy();
    });
    upstream.on('close', () => {
      open.delete(upstream);
      if (connected) client.destroy();
    });
  };

  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    open.add(client);
    client.on('error', () => undefined);
    client.on('close', () => open.delete(client));
    attach(client, 0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    connections,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
