// The socket the live game reads, as much of Socket.IO's client as it uses (a test passes its own).
import type { ClientToServerEvents, ServerToClientEvents } from '@omc/contracts';
import type { Socket } from 'socket.io-client';

export type GameSocket = Pick<
  Socket<ServerToClientEvents, ClientToServerEvents>,
  'on' | 'disconnect' | 'connect' | 'active'
>;
