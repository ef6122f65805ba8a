// Whether the page shows itself connected, through the socket's own reconnects: a server going away (a
// rollout) says `move` first, and a refused handshake is tried again, which the client does not itself.
import type { GameSocket } from './gameSocket';

const RETRY_REFUSED_MS = 2000;
/** After `move`, the page keeps showing itself connected this long while the socket finds another server. */
const MOVE_GRACE_MS = 5000;

export function followConnection(socket: GameSocket, setConnected: (connected: boolean) => void) {
  let retry: ReturnType<typeof setTimeout> | null = null;
  // A server going away (a rollout) says `move` before it closes the connection: the socket reconnects
  // to another server by itself, and the page does not show itself disconnected meanwhile.
  let moving: ReturnType<typeof setTimeout> | null = null;
  let up = false;
  const endMove = () => {
    if (moving) clearTimeout(moving);
    moving = null;
  };
  socket.on('move', () => {
    endMove();
    moving = setTimeout(() => {
      moving = null;
      if (!up) setConnected(false);
    }, MOVE_GRACE_MS);
  });
  socket.on('connect', () => {
    up = true;
    endMove();
    setConnected(true);
  });
  // A refused handshake (an expired token, say) is not retried by the client itself; nor is a socket the
  // server closed (its token expired, or its session ended): each is tried again with the token of the
  // moment (read at every connect), and a handshake the server refuses again waits as before.
  const retryLater = () => {
    if (socket.active || retry) return;
    retry = setTimeout(() => {
      retry = null;
      socket.connect();
    }, RETRY_REFUSED_MS);
  };
  socket.on('disconnect', (reason) => {
    up = false;
    if (!moving) setConnected(false);
    if (reason === 'io server disconnect') retryLater();
  });
  socket.on('connect_error', retryLater);
  return () => {
    if (retry) clearTimeout(retry);
    endMove();
  };
}
