// Handing one realtime instance a websocket upgrade: dial it, send the upgrade, wait for its first bytes.
// A refused connection or a 503 (a draining instance) is a refusal, and the instance is skipped for a
// few seconds.
import { connect, type Socket } from 'node:net';

const CONNECT_TIMEOUT_MS = 2_000;
const SKIP_DOWN_MS = 3_000;
/** An upstream's answer to the upgrade that says it takes no new sockets (a draining realtime). */
const DRAINING = /^HTTP\/1\.[01] 503 /;

export interface Upstream {
  host: string;
  port: number;
  downUntil: number;
}

function dial(upstream: Upstream): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: upstream.host, port: upstream.port });
    const timer = setTimeout(() => socket.destroy(new Error('connect timeout')), CONNECT_TIMEOUT_MS);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      upstream.downUntil = Date.now() + SKIP_DOWN_MS;
      reject(error);
    });
  });
}

/** The connection's first chunk, the connection paused after it; it fails if the connection ends first. */
function firstBytes(socket: Socket): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      socket.removeListener('error', fail).removeListener('close', closed);
      resolve(chunk);
    });
    const closed = () => fail(new Error('closed before answering the upgrade'));
    socket.once('error', fail).once('close', closed);
  });
}

/**
 * Dials `candidate`, sends it the upgrade and waits for its first bytes: a 503 (draining) counts as a
 * refusal, like a refused connection. Resolves to the connection and those bytes.
 */
export async function handOver(
  candidate: Upstream,
  upgradeRequest: string,
  head: Buffer,
): Promise<{ socket: Socket; first: Buffer }> {
  const socket = await dial(candidate);
  socket.setNoDelay(true);
  socket.write(upgradeRequest);
  if (head.length > 0) socket.write(head);
  // No time limit here: a busy instance that accepted the connection answers when it can, and the
  // client's own handshake timeout bounds the wait (a second instance would only double the work).
  const first = await firstBytes(socket);
  if (DRAINING.test(first.toString('latin1', 0, 20))) {
    socket.destroy();
    candidate.downUntil = Date.now() + SKIP_DOWN_MS;
    throw new Error('draining');
  }
  return { socket, first };
}
