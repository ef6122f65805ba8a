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
  socket.on('disconnect', () => {
    up = false;
    if (!moving) setConnected(false);
  });
  // A refused handshake (an expired token, say) is not retried by the client itself.
  socket.on('connect_error', () => {
    if (socket.active || retry) return;
    retry = setTimeout(() => {
      retry = null;
      socket.connect();
    }, RETRY_REFUSED_MS);
  });
  return () => {
    if (retry) clearTimeout(retry);
    endMove();
  };
}
