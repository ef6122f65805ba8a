// Impolite clients beside players, on the whole system: players click open-loop at a fixed rate (each
// token waits out any Retry-After it is given, as the web app does) while sockets listen, straight to
// realtime or through the gateway's tunnel; then the same players beside 64 closed-loop connections
// that resend the moment they are answered, whatever they were told. The players' goodput beside them
// over their goodput alone, measured in the same run, is the figure (target ≥ 0.9 on both socket
// paths). Then an idle phase (the sockets listening, no clicks), and the impolite connections alone with
// their refusals sent at once: the gateway's CPU per early refusal beside its CPU per accepted click of
// the players-alone phase, each less the idle phase's CPU.
// The system's gateway runs with the early-retry refusal on (its default), and the game with its per-user
// click limit (its default), for this scenario only: the other scenarios' load tokens each stand for
// many players and click on schedule whatever they are told.
import { Pool } from 'undici';
import type { BenchSystem } from '../bench-system.js';
import { runImpolite, sendClick } from '../impolite.js';
import { cpuSeconds } from '../proc.js';
import type { BenchSettings } from '../settings.js';
import { connectFleet } from './sockets.js';

export const IMPOLITE_CONNECTIONS = 64;
const PENALTY_KEYS = '100000';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface RefusalsPhase {
  seconds: number;
  playersOffered: number;
  playersOk: number;
  players503: number;
  /** Players refused by the early-retry rule: 0 when every player honours Retry-After. */
  players429: number;
  impoliteOk: number;
  impolite429: number;
  impolite503: number;
  gatewayCpuS: number;
}

export interface RefusalsScenario {
  via: 'realtime' | 'gateway';
  listeners: number;
  playerRate: number;
  alone: RefusalsPhase;
  beside: RefusalsPhase;
  /** The sockets listening and nothing clicking: the gateway's CPU that is no click's. */
  idle: RefusalsPhase;
  /** The impolite connections alone with their refusals sent at once (no hold), for their cost. */
  impoliteAlone: RefusalsPhase;
  /** Players' accepted clicks/s beside the impolite connections over alone. */
  goodputRatio: number | null;
  cpuMicrosPerAccepted: number | null;
  cpuMicrosPerRefusal: number | null;
}

/**
 * Restarts a process of the system with one setting changed (nothing when it already has it);
 * `undefined` gives the process its default again.
 */
export async function setSetting(
  bs: BenchSystem,
  name: string,
  key: string,
  value: string | undefined,
): Promise<void> {
  const process = bs.process(name);
  if (process.env[key] === value) return;
  if (value === undefined) delete process.env[key];
  else process.env[key] = value;
  await bs.system.stopProcess(name);
  await bs.system.restartProcess(name);
}

const setPenalty = (bs: BenchSystem, keys: string) =>
  setSetting(bs, 'gateway', 'CLICK_PENALTY_MAX_KEYS', keys);

/**
 * The game's per-user click limit as production runs it (CLICK_RATE_PER_USER's default): the other
 * scenarios lift it, since their load tokens each stand for many players. A player presses a few times
 * a second, far under it; an impolite connection's token is held to it, and the gateway learns from
 * those refusals' Retry-After as from its own.
 */
export const PRODUCTION_RATE_PER_USER = '20';
const setRatePerUser = (bs: BenchSystem, rate: string) => setSetting(bs, 'game', 'CLICK_RATE_PER_USER', rate);

async function phase(
  bs: BenchSystem,
  options: {
    seconds: number;
    playerRate: number;
    playerTokens: string[];
    impoliteTokens: string[];
    players: boolean;
    impolite: boolean;
  },
): Promise<RefusalsPhase> {
  const stats: RefusalsPhase = {
    seconds: options.seconds,
    playersOffered: 0,
    playersOk: 0,
    players503: 0,
    players429: 0,
    impoliteOk: 0,
    impolite429: 0,
    impolite503: 0,
    gatewayCpuS: 0,
  };
  const gatewayPid = bs.process('gateway').pid!;
  const pool = new Pool(bs.gatewayUrl, { connections: 64 });
  const until = Date.now() + options.seconds * 1000;
  const backoffUntil = new Array<number>(options.playerTokens.length).fill(0);
  const busy = new Array<boolean>(options.playerTokens.length).fill(false);
  const cpuBefore = cpuSeconds(gatewayPid);
  const players = (async () => {
    if (!options.players) return;
    const interval = 1000 / options.playerRate;
    const inFlight: Promise<void>[] = [];
    for (let i = 0, t = Date.now(); t < until; i++, t += interval) {
      const wait = t - Date.now();
      if (wait > 0) await sleep(wait);
      const who = i % options.playerTokens.length;
      // A player honours its Retry-After: the clicks it would have made meanwhile wait. A player is one
      // person: a press while its last click is unanswered waits too (a token that stood for many
      // players would have clicks in flight sent before its refusal, arriving after it as early retries).
      if (Date.now() < backoffUntil[who]! || busy[who]) continue;
      stats.playersOffered += 1;
      busy[who] = true;
      inFlight.push(
        sendClick(pool, options.playerTokens[who]!).then(
          (a) => {
            busy[who] = false;
            if (a.status === 200) stats.playersOk += 1;
            else {
              if (a.status === 429) stats.players429 += 1;
              else stats.players503 += 1;
              backoffUntil[who] = Date.now() + a.retryAfter * 1000;
            }
          },
          () => {
            busy[who] = false;
          },
        ),
      );
    }
    await Promise.all(inFlight);
  })();
  const impoliteTokens = options.impoliteTokens;
  const impolite = options.impolite
    ? runImpolite(
        bs.gatewayUrl,
        IMPOLITE_CONNECTIONS,
        (i) => impoliteTokens[i % impoliteTokens.length]!,
        until,
        stats,
      )
    : undefined;
  await Promise.all([players, impolite]);
  stats.gatewayCpuS = cpuSeconds(gatewayPid) - cpuBefore;
  await pool.close();
  return stats;
}

export async function measureRefusals(
  bs: BenchSystem,
  settings: BenchSettings,
  via: RefusalsScenario['via'],
  log: (line: string) => void,
): Promise<RefusalsScenario> {
  const r = settings.refusals;
  const liftedRate = bs.process('game').env.CLICK_RATE_PER_USER ?? PRODUCTION_RATE_PER_USER;
  await setPenalty(bs, PENALTY_KEYS);
  await setRatePerUser(bs, PRODUCTION_RATE_PER_USER);
  // Most tokens to the players (each one person at a few presses a second), a quarter to the impolite.
  const half = Math.max(1, Math.ceil((bs.users.length * 3) / 4));
  const playerTokens = bs.users.slice(0, half).map((u) => u.token);
  const impoliteTokens = bs.users.slice(half).map((u) => u.token);
  if (impoliteTokens.length === 0) impoliteTokens.push(playerTokens.pop()!);
  const fleet = await connectFleet(
    bs,
    { ...settings, socketsPerWorker: r.listeners },
    r.listeners,
    via === 'gateway' ? bs.gatewayUrl : bs.realtimeUrl,
  );
  const where = via === 'gateway' ? "through the gateway's tunnel" : 'straight to realtime';
  try {
    log(
      `[bench] refusals, sockets ${where}: ${fleet.connected} listening; players ${r.playerRate} clicks/s over ${playerTokens.length} tokens, ` +
        `${IMPOLITE_CONNECTIONS} impolite connections over ${impoliteTokens.length} tokens, ${r.phaseS} s a phase`,
    );
    const base = { seconds: r.phaseS, playerRate: r.playerRate, playerTokens, impoliteTokens };
    // A short warm-up, not counted: fresh code paths answer their first requests slowly.
    await phase(bs, { ...base, seconds: Math.min(2, r.phaseS), players: true, impolite: false });
    const alone = await phase(bs, { ...base, players: true, impolite: false });
    const beside = await phase(bs, { ...base, players: true, impolite: true });
    const idle = await phase(bs, { ...base, players: false, impolite: false });
    // What one early refusal costs: the impolite connections alone, their refusals sent at once (held,
    // they come once a second per connection and the gateway's own upkeep would be most of the figure).
    // Each cost is the gateway's CPU over the phase less its CPU over the idle phase, per answer.
    await setSetting(bs, 'gateway', 'CLICK_PENALTY_DELAY_MS', '0');
    const impoliteAlone = await phase(bs, { ...base, players: false, impolite: true });
    await setSetting(bs, 'gateway', 'CLICK_PENALTY_DELAY_MS', undefined);
    const goodputRatio = alone.playersOk > 0 ? beside.playersOk / alone.playersOk : null;
    const cpuMicrosPerAccepted =
      alone.playersOk > 0
        ? (Math.max(0, alone.gatewayCpuS - idle.gatewayCpuS) * 1e6) / alone.playersOk
        : null;
    // The impolite clicks accepted before they were caught are charged at the players' cost per click.
    const refusalCpuS =
      impoliteAlone.gatewayCpuS -
      idle.gatewayCpuS -
      (impoliteAlone.impoliteOk * (cpuMicrosPerAccepted ?? 0)) / 1e6;
    const result: RefusalsScenario = {
      via,
      listeners: fleet.connected,
      playerRate: r.playerRate,
      alone,
      beside,
      idle,
      impoliteAlone,
      goodputRatio,
      cpuMicrosPerAccepted,
      cpuMicrosPerRefusal:
        impoliteAlone.impolite429 > 0 ? (Math.max(0, refusalCpuS) * 1e6) / impoliteAlone.impolite429 : null,
    };
    const perS = (n: number, p: RefusalsPhase) => Math.round(n / p.seconds);
    log(
      `[bench]   players alone ${perS(alone.playersOk, alone)}/s; beside ${IMPOLITE_CONNECTIONS} impolite ${perS(beside.playersOk, beside)}/s ` +
        `(${goodputRatio === null ? 'n/a' : (goodputRatio * 100).toFixed(1)} %; players refused ${beside.players503} for overload, ${beside.players429} early); ` +
        `impolite: ${beside.impoliteOk} accepted, ${beside.impolite503} shed, ${beside.impolite429} refused early; ` +
        `gateway CPU per accepted click ${Math.round(result.cpuMicrosPerAccepted ?? 0)} µs, per early refusal ${Math.round(result.cpuMicrosPerRefusal ?? 0)} µs`,
    );
    return result;
  } finally {
    await fleet.close();
    await setPenalty(bs, '0');
    await setRatePerUser(bs, liftedRate);
  }
}
