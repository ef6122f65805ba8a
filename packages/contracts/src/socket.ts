// Socket.IO events (docs/client-contract.md): the server emits, the browser only listens.
import { z } from 'zod';
import { Euros } from './common.js';
import { GameState } from './game.js';

export const SOCKET_PATH = '/socket.io';

/** The whole state to every socket, with or without a token (the original client never authenticates it). */
export const GameStateUpdate = GameState;
export const WinnerEvent = z.object({ username: z.string(), pot: Euros });
export const UserCountUpdate = z.number().int().nonnegative();
/**
 * To a signed-in socket on connect: a stamp of everything of the player's the profile shows. It changes
 * whenever something of theirs changed (a purchase, a payout, a role or account change, a round's end);
 * a client that reconnects and sees the stamp it had reads the profile again only if it differs.
 */
export const ProfileStamp = z.string().min(1).max(100);
/**
 * The instance is going away (a rollout): the server closes this connection right after, and the client
 * reconnects to another instance as after any dropped connection. Not an error to show.
 */
export const Move = z.object({});

export interface ServerToClientEvents {
  gameStateUpdate: (state: z.infer<typeof GameStateUpdate>) => void;
  winner: (event: z.infer<typeof WinnerEvent>) => void;
  userCountUpdate: (count: number) => void;
  profileStamp: (stamp: string) => void;
  move: (event: z.infer<typeof Move>) => void;
}

/** The browser sends no events. */
export type ClientToServerEvents = Record<string, never>;

export const SOCKET_EVENTS = {
  gameStateUpdate: GameStateUpdate,
  winner: WinnerEvent,
  userCountUpdate: UserCountUpdate,
  profileStamp: ProfileStamp,
  move: Move,
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
