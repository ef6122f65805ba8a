// A lean HTTP/1.1 client for the open-loop generator's one request: POST to one path, an empty body, a
// bearer token. The generator shares the two cores with the system under test, so what it spends per
// click is taken from the servers: a general client (undici) spent 250-400 µs of CPU per click here, and
// lagged its own schedule by 100 ms at 4,500 clicks a second. This one writes a request prepared once
// per token, and reads an answer by its status line, two headers and its length, over pooled keep-alive
// connections, one request at a time on each (as a browser's connection carries a player's clicks).
import { connect, type Socket } from 'node:net';

export interface ClickAnswer {
  status: number;
  body: string;
  retryAfter: boolean;
}

export type ClickDone = (error: Error | undefined, answer?: ClickAnswer) => void;

export interface ClickClientOptions {
  /** http://host:port of the server. */
  origin: string;
  path: string;
  /** Connections opened at most; a click finds an idle one, or opens one, or waits for one. */
  connections: number;
  /** A click unanswered this long after it was written fails (its connection is closed). */
  timeoutMs: number;
}

interface Pending {
  request: Buffer;
  done: ClickDone;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const MAX_HEAD_BYTES = 16 * 1024;

/** The answer at the start of `data`, and how many bytes it took; undefined while incomplete. */
export function parseAnswer(
  data: Buffer,
): { answer: ClickAnswer; length: number; close: boolean } | undefined {
  const headEnd = data.indexOf(HEAD_END);
  if (headEnd < 0) {
    if (data.length > MAX_HEAD_BYTES) throw new Error('answer head too large');
    return undefined;
  }
  const head = data.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  if (!head.startsWith('HTTP/1.') || !Number.isInteger(status)) throw new Error('not an HTTP/1.x answer');
  const bodyStart = headEnd + 4;
  const close = /\r\nconnection:[ \t]*close/i.test(head);
  const retryAfter = /\r\nretry-after:/i.test(head);
  const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
  if (length) {
    const end = bodyStart + Number(length[1]);
    if (data.length < end) return undefined;
    return {
      answer: { status, body: data.toString('utf8', bodyStart, end), retryAfter },
      length: end,
      close,
    };
  }
  if (/\r\ntransfer-encoding:[ \t]*chunked/i.test(head)) {
    const parts: Buffer[] = [];
    let at = bodyStart;
    for (;;) {
      const lineEnd = data.indexOf('\r\n', at);
      if (lineEnd < 0) return undefined;
      const size = parseInt(data.toString('latin1', at, lineEnd), 16);
      if (!Number.isFinite(size)) throw new Error('bad chunk size');
      const chunkEnd = lineEnd + 2 + size;
      if (data.length < chunkEnd + 2) return undefined;
      if (size === 0) {
        // No trailers are sent to this client: the last chunk ends with one empty line.
        return {
          answer: { status, body: Buffer.concat(parts).toString('utf8'), retryAfter },
          length: chunkEnd + 2,
          close,
        };
      }
      parts.push(data.subarray(lineEnd + 2, chunkEnd));
      at = chunkEnd + 2;
    }
  }
  // No length and no chunks: only an answer without a body (204, 304) or one ended by closing.
  if (status === 204 || status === 304)
    return { answer: { status, body: '', retryAfter }, length: bodyStart, close };
  throw new Error('answer without a length');
}

class Connection {
  readonly socket: Socket;
  connected = false;
  pending: Pending | undefined;
  sentAt = 0;
  private data: Buffer = Buffer.alloc(0);

  constructor(
    private readonly client: ClickClient,
    host: string,
    port: number,
  ) {
    this.socket = connect({ host, port, noDelay: true });
    this.socket.on('connect', () => {
      this.connected = true;
      this.client.idle(this);
    });
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => this.client.closed(this, new Error('connection closed')));
  }

  send(pending: Pending, now: number): void {
    this.pending = pending;
    this.sentAt = now;
    this.socket.write(pending.request);
  }

  private read(chunk: Buffer): void {
    this.data = this.data.length === 0 ? chunk : Buffer.concat([this.data, chunk]);
    let parsed: ReturnType<typeof parseAnswer>;
    try {
      parsed = parseAnswer(this.data);
    } catch (error) {
      return void this.socket.destroy(error as Error);
    }
    if (!parsed) return;
    const pending = this.pending;
    this.pending = undefined;
    this.data = this.data.subarray(parsed.length);
    if (!pending) return void this.socket.destroy(new Error('an answer nobody asked for'));
    pending.done(undefined, parsed.answer);
    if (parsed.close) this.socket.destroy();
    else this.client.idle(this);
  }
}

export class ClickClient {
  private readonly host: string;
  private readonly port: number;
  private readonly requests = new Map<string, Buffer>();
  private readonly open = new Set<Connection>();
  private readonly free: Connection[] = [];
  private readonly queue: Pending[] = [];
  private queueHead = 0;
  private readonly sweeper: NodeJS.Timeout;
  private closing = false;

  constructor(private readonly options: ClickClientOptions) {
    const url = new URL(options.origin);
    this.host = url.hostname;
    this.port = Number(url.port || 80);
    this.sweeper = setInterval(() => this.sweep(), Math.min(100, options.timeoutMs));
  }

  /** Sends one click with this token; `done` gets its answer or the error that ended it. */
  click(token: string, done: ClickDone): void {
    let request = this.requests.get(token);
    if (!request) {
      request = Buffer.from(
        `POST ${this.options.path} HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\n` +
          `Authorization: Bearer ${token}\r\nContent-Length: 0\r\n\r\n`,
        'latin1',
      );
      this.requests.set(token, request);
    }
    const pending = { request, done };
    const connection = this.free.pop();
    if (connection) return connection.send(pending, performance.now());
    this.queue.push(pending);
    if (this.open.size < this.options.connections) this.open.add(new Connection(this, this.host, this.port));
  }

  /** Clicks waiting for a connection. */
  get waiting(): number {
    return this.queue.length - this.queueHead;
  }

  /** @internal A connection is ready for the next click. */
  idle(connection: Connection): void {
    if (this.closing) return void connection.socket.destroy();
    const next = this.take();
    if (next) connection.send(next, performance.now());
    else this.free.push(connection);
  }

  /** @internal A connection is gone: its click failed, and a queued click gets a new connection. */
  closed(connection: Connection, error: Error): void {
    if (!this.open.delete(connection)) return;
    const at = this.free.indexOf(connection);
    if (at >= 0) this.free.splice(at, 1);
    const pending = connection.pending;
    connection.pending = undefined;
    if (pending) pending.done(error);
    else if (!connection.connected) {
      // It never connected: the click that asked for it fails, so a refused port cannot loop.
      this.take()?.done(error);
    }
    if (!this.closing && this.waiting > 0 && this.open.size < this.options.connections)
      this.open.add(new Connection(this, this.host, this.port));
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweeper);
    const closes = [...this.open].map(
      (c) =>
        new Promise<void>((resolve) => (c.socket.destroyed ? resolve() : c.socket.once('close', resolve))),
    );
    for (const c of this.open) c.socket.destroy();
    for (let p = this.take(); p; p = this.take()) p.done(new Error('client closed'));
    await Promise.all(closes);
  }

  private take(): Pending | undefined {
    if (this.queueHead >= this.queue.length) return undefined;
    const next = this.queue[this.queueHead]!;
    this.queue[this.queueHead] = undefined as unknown as Pending;
    this.queueHead += 1;
    if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
      this.queue.splice(0, this.queueHead);
      this.queueHead = 0;
    }
    return next;
  }

  private sweep(): void {
    const now = performance.now();
    for (const c of this.open)
      if (c.pending && now - c.sentAt > this.options.timeoutMs)
        c.socket.destroy(new Error(`no answer within ${this.options.timeoutMs} ms`));
  }
}
