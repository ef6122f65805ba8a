// Socket.IO events (docs/client-contract.md): the server emits, the browser only listens.
import { z } from 'zod';
import { Euros } from './common.js';
import { GameState } from './game.js';

export const SOCKET_PATH = '/socket.io';

/** The whole state to every socket, with or without a token (the original client never authenticates it). */
export const GameStateUpdate = GameState;
export const WinnerEvent = z.object({ username: z.string(), pot: Euros });
export const UserCountUpdate = z.number().int().nonnegative();

export interface ServerToClientEvents {
  gameStateUpdate: (state: z.infer<typeof GameStateUpdate>) => void;
  winner: (event: z.infer<typeof WinnerEvent>) => void;
  userCountUpdate: (count: number) => void;
}

/** The browser sends no events. */
export type ClientToServerEvents = Record<string, never>;

export const SOCKET_EVENTS = {
  gameStateUpdate: GameStateUpdate,
  winner: WinnerEvent,
  userCountUpdate: UserCountUpdate,
} as const;

/** Client reconnection settings of the client contract. */
export const SOCKET_CLIENT_OPTIONS = {
  path: SOCKET_PATH,
  transports: ['websocket'] as string[],
  reconnectionDelay: 1000,
  reconnectionDelayMax: 5000,
  randomizationFactor: 0.5,
  timeout: 20000,
};
