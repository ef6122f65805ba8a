// A crowd of web-app-like clients in a process of its own (the crowd scenarios): each holds a socket as
// the web app does (socket.io-client, the contracts' reconnection settings, a token), and on each
// reconnect does what the web app does: reads the profile over HTTP only when the profile stamp the
// server sends differs from the last one. It records when each client was back with a state after a
// drop, the longest time each went without a state, what it would have shown as an error (a drop not
// announced by `move`, a failed connection), and the arrival of states for click-to-screen.
// The same process can also click on a schedule (an open loop), recording when each click left.
import { SOCKET_CLIENT_OPTIONS, type ServerToClientEvents } from '@omc/contracts';
import { io, type Socket } from 'socket.io-client';
import { percentile } from './stats.js';
import { nowMs, serveCalls } from './workers.js';

interface CrowdClient {
  socket: Socket<ServerToClientEvents>;
  token: string;
  up: boolean;
  moved: boolean;
  downAt: number | null;
  lastStateAt: number | null;
  maxGapMs: number;
  knownStamp: string | null;
  /** Arrival of each state while recording (timed clients only): [globalClicks, at]. */
  states: [number, number][];
  timed: boolean;
  /** Dropped while recording: not one of "the other players". */
  dropped: boolean;
}

interface Tally {
  backMs: number[];
  reconnects: number;
  moves: number;
  shownErrors: number;
  profileReads: number;
  profile5xx: number;
  messages: number;
  /** What failed connections said, by message. */
  errorMessages: Record<string, number>;
}

/** What `summary` answers: the tally since `record`, and the figures drawn from it. */
export interface CrowdSummary extends Omit<Tally, 'backMs'> {
  clients: number;
  up: number;
  dropped: number;
  backed: number;
  backMaxMs: number | null;
  backP99Ms: number | null;
  maxGapMs: number | null;
  clickToScreenP99Ms: (number | null)[];
}

const clients: CrowdClient[] = [];
let apiUrl = '';
let recording = false;
let tally: Tally = fresh();

function fresh(): Tally {
  return {
    backMs: [],
    reconnects: 0,
    moves: 0,
    shownErrors: 0,
    profileReads: 0,
    profile5xx: 0,
    messages: 0,
    errorMessages: {},
  };
}

function readProfile(client: CrowdClient): void {
  if (recording) tally.profileReads += 1;
  fetch(`${apiUrl}/api/user/profile`, { headers: { authorization: `Bearer ${client.token}` } }).then(
    async (response) => {
      await response.arrayBuffer();
      if (recording && response.status >= 500) tally.profile5xx += 1;
    },
    () => {
      if (recording) tally.profile5xx += 1;
    },
  );
}

function open(url: string, token: string, timed: boolean): CrowdClient {
  const socket: Socket<ServerToClientEvents> = io(url, {
    ...SOCKET_CLIENT_OPTIONS,
    forceNew: true,
    auth: { token },
  });
  const client: CrowdClient = {
    socket,
    token,
    up: false,
    moved: false,
    downAt: null,
    lastStateAt: null,
    maxGapMs: 0,
    knownStamp: null,
    states: [],
    timed,
    dropped: false,
  };
  socket.on('connect', () => {
    client.up = true;
    if (client.downAt !== null && recording) tally.reconnects += 1;
  });
  socket.on('disconnect', () => {
    client.up = false;
    client.downAt ??= nowMs();
    if (recording) {
      client.dropped = true;
      // The web app shows itself disconnected unless the server said `move` first.
      if (!client.moved) tally.shownErrors += 1;
    }
  });
  socket.on('connect_error', (error) => {
    if (!recording) return;
    tally.shownErrors += 1;
    tally.errorMessages[error.message] = (tally.errorMessages[error.message] ?? 0) + 1;
  });
  socket.on('move', () => {
    client.moved = true;
    if (recording) tally.moves += 1;
  });
  socket.on('profileStamp', (stamp) => {
    if (client.knownStamp !== null && stamp !== client.knownStamp) readProfile(client);
    client.knownStamp = stamp;
  });
  socket.onAny(() => {
    if (recording) tally.messages += 1;
  });
  socket.on('gameStateUpdate', (state) => {
    const at = nowMs();
    if (recording) {
      if (client.lastStateAt !== null) client.maxGapMs = Math.max(client.maxGapMs, at - client.lastStateAt);
      if (client.timed) client.states.push([state.globalClicks, at]);
      if (client.downAt !== null) tally.backMs.push(at - client.downAt);
    }
    client.downAt = null;
    client.moved = false;
    client.lastStateAt = at;
  });
  return client;
}

/** Clicks sent on a schedule: when each left and the counter its answer gave. */
let clicker: { timer: NodeJS.Timeout | undefined; sent: [number, number][]; errors: number } | undefined;

function startClicks(args: { url: string; tokens: string[]; rate: number }): void {
  const sent: [number, number][] = [];
  let due = 0;
  let n = 0;
  const state = { sent, errors: 0, timer: undefined as NodeJS.Timeout | undefined };
  state.timer = setInterval(() => {
    due += args.rate / 100;
    for (; due >= 1; due -= 1) {
      const token = args.tokens[n++ % args.tokens.length]!;
      const at = nowMs();
      fetch(`${args.url}/api/game/click`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
        .then(async (r) => {
          const body = (await r.json()) as { globalClicks?: number };
          if (r.ok && typeof body.globalClicks === 'number') sent.push([at, body.globalClicks]);
          else state.errors += 1;
        })
        .catch(() => (state.errors += 1));
    }
  }, 10);
  clicker = state;
}

/** Click to screen for each click of `clicks` sent within [from, to), on timed clients not dropped. */
function clickToScreen(clicks: [number, number][], from: number, to: number): number[] {
  const delays: number[] = [];
  const inWindow = clicks.filter(([at]) => at >= from && at < to);
  for (const client of clients) {
    if (!client.timed || client.dropped) continue;
    let i = 0;
    for (const [at, ordinal] of [...inWindow].sort((a, b) => a[1] - b[1])) {
      while (i < client.states.length && client.states[i]![0] < ordinal) i += 1;
      const seen = client.states[i];
      if (seen) delays.push(seen[1] - at);
    }
  }
  return delays;
}

serveCalls({
  async connect(args: { url: string; api: string; count: number; tokens: string[]; timed: number }) {
    apiUrl = args.api;
    for (let i = 0; i < args.count; i += 1) {
      clients.push(open(args.url, args.tokens[i % args.tokens.length]!, i < args.timed));
      // A few at a time, as players arrive.
      if (i % 50 === 49) await new Promise((r) => setTimeout(r, 20));
    }
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && clients.some((c) => c.lastStateAt === null))
      await new Promise((r) => setTimeout(r, 100));
    return { connected: clients.filter((c) => c.lastStateAt !== null).length };
  },
  record() {
    tally = fresh();
    for (const c of clients) {
      c.maxGapMs = 0;
      c.states = [];
      c.dropped = false;
    }
    recording = true;
    return nowMs();
  },
  /** The recording so far; with `clicks` and windows, click to screen p99 in each window. */
  summary(args: { clicks?: [number, number][]; windows?: [number, number][] } = {}): CrowdSummary {
    const gaps = clients.map((c) => c.maxGapMs);
    const { backMs, ...counts } = tally;
    return {
      clients: clients.length,
      up: clients.filter((c) => c.up && c.downAt === null).length,
      dropped: clients.filter((c) => c.dropped).length,
      ...counts,
      backed: backMs.length,
      backMaxMs: backMs.length ? Math.max(...backMs) : null,
      backP99Ms: percentile(backMs, 99) ?? null,
      maxGapMs: gaps.length ? Math.max(...gaps) : null,
      clickToScreenP99Ms: (args.windows ?? []).map(
        ([from, to]) => percentile(clickToScreen(args.clicks ?? [], from, to), 99) ?? null,
      ),
    };
  },
  stopRecording() {
    recording = false;
  },
  startClicks,
  stopClicks() {
    if (!clicker) return { sent: [], errors: 0 };
    clearInterval(clicker.timer);
    const { sent, errors } = clicker;
    clicker = undefined;
    return { sent, errors };
  },
  /** The clicks so far, without stopping. */
  clicksSoFar: () => clicker?.sent ?? [],
  close() {
    for (const c of clients.splice(0)) c.socket.close();
  },
});
