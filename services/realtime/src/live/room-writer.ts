// The tick's broadcast to one room of this instance's sockets, with the per-socket work cut to one
// buffer write. The events are encoded once (Socket.IO packet, Engine.IO message, websocket text frame)
// and their frames, back to back in one buffer, are handed to each socket's websocket sender, as
// Engine.IO itself does for a pre-encoded broadcast frame, without Engine.IO's per-packet bookkeeping
// (packet objects, five events and a completion callback per socket): however many events a tick
// carries, a socket costs one write (one system call). A socket whose connection has anything queued,
// or is not on a plain websocket, gets the events through Socket.IO's own path, so the order of its
// messages holds.
import type { Namespace, Socket } from 'socket.io';

/** The parts of Engine.IO's connection and of `ws` that the direct write relies on. */
interface WsSender {
  sendFrame(list: Buffer[], cb?: (error?: Error) => void): void;
  _state?: number;
  _queue?: unknown[];
}
interface EngineConnection {
  readyState: string;
  writeBuffer: unknown[];
  transport: {
    name: string;
    writable: boolean;
    socket?: { readyState?: number; _sender?: WsSender };
  };
}

/** `ws`'s Sender state when it writes straight through (no compression or blob read in progress). */
const SENDER_IDLE = 0;
/** `ws`'s WebSocket.OPEN. */
const WS_OPEN = 1;

/**
 * One websocket text frame (FIN, opcode 1, server frames are never masked) holding the Engine.IO
 * message packet ("4") of the Socket.IO event packet ("2" in the main namespace) `[event, data]`.
 */
export function encodeEventFrame(event: string, data: unknown): Buffer {
  const payload = Buffer.from(`42${JSON.stringify([event, data])}`);
  const length = payload.length;
  let header: Buffer;
  if (length < 126) {
    header = Buffer.from([0x81, length]);
  } else if (length < 65_536) {
    header = Buffer.alloc(4);
    header[0] = 0x81;
    header[1] = 126;
    header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x81;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([header, payload]);
}

/** The websocket sender of a socket that can take a frame now without overtaking anything, if any. */
function idleSender(socket: Socket): WsSender | undefined {
  const conn = socket.conn as unknown as EngineConnection;
  const transport = conn.transport;
  if (conn.readyState !== 'open' || transport.name !== 'websocket' || !transport.writable) return undefined;
  if (conn.writeBuffer.length > 0) return undefined;
  const ws = transport.socket;
  const sender = ws?._sender;
  if (ws?.readyState !== WS_OPEN || typeof sender?.sendFrame !== 'function') return undefined;
  if (sender._state !== SENDER_IDLE || (sender._queue?.length ?? 0) > 0) return undefined;
  return sender;
}

export interface RoomWrite {
  /** Sockets written to directly. */
  direct: number;
  /** Sockets that got the event through Socket.IO's own path. */
  fallback: number;
}

/** An event and its data, as `socket.emit(event, data)` would send them. */
export type RoomEvent = readonly [event: string, data: unknown];

/** Emits `event` with `data` to every local socket of `room` in namespace `nsp`. */
export function writeToRoom(nsp: Namespace, room: string, event: string, data: unknown): RoomWrite {
  return writeEventsToRoom(nsp, room, [[event, data]]);
}

/** Emits each of `events`, in order, to every local socket of `room`: one write per socket for all of them. */
export function writeEventsToRoom(nsp: Namespace, room: string, events: readonly RoomEvent[]): RoomWrite {
  const ids = nsp.adapter.rooms.get(room);
  const result: RoomWrite = { direct: 0, fallback: 0 };
  if (!ids || ids.size === 0 || events.length === 0) return result;
  const frames = events.map(([event, data]) => encodeEventFrame(event, data));
  const list = [frames.length === 1 ? frames[0]! : Buffer.concat(frames)];
  for (const id of ids) {
    const socket = nsp.sockets.get(id);
    if (!socket) continue;
    const sender = idleSender(socket);
    if (sender) {
      sender.sendFrame(list);
      result.direct += 1;
    } else {
      for (const [event, data] of events)
        (socket.emit as (ev: string, ...args: unknown[]) => boolean)(event, data);
      result.fallback += 1;
    }
  }
  return result;
}
