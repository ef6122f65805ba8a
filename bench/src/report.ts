// The run's figures as bench/results/latest.json (stable keys, for comparing runs over time) and as a
// Markdown table with each figure beside its target.
import type { FanoutPoint } from './scenarios/fanout.js';
import { clickToScreenBudgetMs, TUNNEL_BUDGET_MS, type StageFigure } from './stages.js';
import type { OpenLoopScenario } from './scenarios/open-loop.js';
import { IMPOLITE_CONNECTIONS, type RefusalsScenario } from './scenarios/refusals.js';
import type { RoundEndResult } from './scenarios/round-end.js';
import type { ThroughputResult } from './scenarios/throughput.js';
import type { LighthousePage } from './scenarios/lighthouse.js';
import type { SessionCheckResult } from './scenarios/session-check.js';
import { crowdChecks, type CrowdResult } from './scenarios/crowd.js';
import type { FreshAuthorityResult } from './scenarios/fresh-authority.js';
import { burstChecks, type BurstsScenario } from './scenarios/bursts.js';
import { PRESSES_PER_SECOND, type WebMixResult } from './scenarios/web-mix.js';
import type { BenchSettings } from './settings.js';
import { round } from './stats.js';
import type { Check } from './check.js';
import type { ScenarioRecord } from './scenario-start.js';

export interface Machine {
  description: string;
  cpuModel: string;
  cpus: number;
  memoryGiB: number;
  os: string;
  node: string;
  redis: string;
  loadAverageAtStart: [number, number, number];
  loadAverageAtEnd?: [number, number, number];
  socketVia: string;
  socketClient: string;
  fileDescriptorLimit: number | null;
}

export type { Check };

export interface Results {
  date: string;
  machine: Machine;
  profile: string;
  clickThroughputRatio: number | null;
  clicksPerSecond: number | null;
  redisIncrRatio: number | null;
  redisCommandsPerClick: number | null;
  tickMs: number;
  observedTickMs: Record<string, number | null>;
  clickToScreen: Record<string, { p50Ms: number | null; p99Ms: number | null }>;
  cpuMicrosPerMessage: Record<string, number | null>;
  /** Realtime's CPU per message over a bare `ws` server's with as many sockets, in the same run. */
  cpuRatioToBaseline: Record<string, number | null>;
  bytesPerSocketPerSecond: Record<string, number | null>;
  memoryPerSocketBytes: Record<string, number | null>;
  roundEnd: {
    p99Ms: number | null;
    winners: number | null;
    p50Ms?: number | null;
    maxMs?: number | null;
    clients?: number;
    received?: number;
    duplicates?: number;
    winningAnswers?: number;
  };
  unreached: { requested: number; connected: number }[];
  checks: Check[];
  details: {
    settings: BenchSettings;
    throughput?: ThroughputResult;
    fanout: FanoutPoint[];
    roundEnd?: RoundEndResult;
    openLoop: OpenLoopScenario[];
    refusals?: RefusalsScenario[];
    webMix?: WebMixResult;
    lighthouse: LighthousePage[];
    sessionCheck?: SessionCheckResult;
    crowd?: CrowdResult;
    freshAuthority?: FreshAuthorityResult;
    bursts?: BurstsScenario;
    /** Each scenario's start (idle level, leftovers), duration, and why it is invalid when it is. */
    scenarios?: ScenarioRecord[];
    errors: string[];
    durationS: number;
  };
  /** One sweep per place the listening sockets connect (straight to realtime, through the gateway). */
  openLoop: {
    via: OpenLoopScenario['via'];
    sustainedRate: number | null;
    overload: {
      factor: number;
      offered: number;
      goodput: number;
      refusedPerSecond: number;
      acceptedClickToScreenP99Ms: number | null;
      refusalP99Ms: number | null;
      counterDrift: number;
      duplicateOrdinals: number;
      unanswered: number;
    }[];
  }[];
  /** Players' goodput beside clients that ignore Retry-After over alone, per socket path. */
  refusals?: {
    via: RefusalsScenario['via'];
    goodputRatio: number | null;
    playersRefusedEarly: number;
    cpuMicrosPerAccepted: number | null;
    cpuMicrosPerRefusal: number | null;
  }[];
}

export const TARGETS = {
  clickThroughputRatio: 0.6,
  redisCommandsPerClick: 0.2,
  clickToScreenSlackMs: 25,
  clickToScreenAt: 2000,
  cpuMicrosPerMessage: 10,
  /** At the largest client count: p99 click to screen within tick + this, with at least that many clicks/s. */
  largestSlackMs: 50,
  largestClicksPerSecond: 1000,
  bytesPerSocketPerSecond: 1024,
  openLoopSustainedRate: 5000,
  openLoopP99Ms: 150,
  overloadGoodputShare: 0.9,
  refusalP99Ms: 50,
  /** Players' goodput beside 64 connections that ignore Retry-After, over their goodput alone. */
  impoliteGoodputShare: 0.9,
};

const viaLabel = (via: OpenLoopScenario['via']) =>
  via === 'gateway' ? "sockets through the gateway's tunnel" : 'sockets straight to realtime';

const fmt = (v: number | null | undefined, unit = '') =>
  v === null || v === undefined ? 'n/a' : `${round(v)}${unit}`;

/** One row per invalid scenario: not measured, and why. */
export function invalidChecks(scenarios: ScenarioRecord[]): Check[] {
  return scenarios
    .filter((s) => s.invalid)
    .map((s) => ({
      figure: `Scenario ${s.scenario}: invalid, no figures`,
      value: s.invalid!,
      target: 'a quiet machine and valid tokens throughout',
      met: null,
    }));
}

/** The table of each scenario's start and duration. */
export function scenarioTable(scenarios: ScenarioRecord[]): string[] {
  if (scenarios.length === 0) return [];
  const lines = [
    'Each scenario started after the previous one had stopped everything it started, with every load token minted for it:',
    '',
    '| Scenario | CPUs idle at start (asked) | Waited for it | Leftover processes stopped | Duration | Valid |',
    '|---|---|---|---|---|---|',
  ];
  for (const s of scenarios) {
    const idle = s.idlePercent === null ? 'n/a' : `${round(s.idlePercent)} %`;
    const asked = s.needPercent > 0 ? `≥ ${s.needPercent} %` : 'not checked';
    const duration = s.durationS === null ? 'not run' : `${round(s.durationS)} s`;
    lines.push(
      `| ${s.scenario} | ${idle} (${asked}) | ${round(s.quietWaitS)} s | ${s.leftovers.length} | ${duration} | ${s.invalid ? `**no**: ${s.invalid}` : 'yes'} |`,
    );
  }
  lines.push('');
  return lines;
}

export function buildResults(input: {
  date: Date;
  machine: Machine;
  settings: BenchSettings;
  throughput?: ThroughputResult;
  fanout: FanoutPoint[];
  roundEnd?: RoundEndResult;
  openLoop?: OpenLoopScenario[];
  refusals?: RefusalsScenario[];
  webMix?: WebMixResult;
  lighthouse?: LighthousePage[];
  sessionCheck?: SessionCheckResult;
  crowd?: CrowdResult;
  freshAuthority?: FreshAuthorityResult;
  bursts?: BurstsScenario;
  scenarios?: ScenarioRecord[];
  errors: string[];
  durationS: number;
}): Results {
  const { sessionCheck, freshAuthority } = input;
  const {
    throughput,
    fanout,
    roundEnd,
    settings,
    openLoop = [],
    refusals = [],
    webMix,
    lighthouse = [],
  } = input;
  const tickMs = 1000 / settings.broadcastHz;
  // A scenario that did not start on a quiet machine with fresh tokens has no figures: it says why.
  const checks: Check[] = invalidChecks(input.scenarios ?? []);
  const byCount = <T>(pick: (p: FanoutPoint) => T) =>
    Object.fromEntries(fanout.map((p) => [String(p.requested), pick(p)]));
  const check = (
    figure: string,
    value: number | null | undefined,
    target: string,
    met: (v: number) => boolean,
    unit = '',
  ) =>
    checks.push({
      figure,
      value: fmt(value, unit),
      target,
      met: value === null || value === undefined ? null : met(value),
    });

  // The first screen on a phone (Lighthouse, mobile, simulated throttling).
  for (const page of lighthouse) {
    // Each figure is the median of the page's runs; the load average beside it says how busy the
    // machine was (Lighthouse's CPU slowdown multiplies whatever the machine's own load costs).
    const loads = page.runs.map((r) => r.loadAverage1m);
    const runs =
      loads.length > 0
        ? ` (median of ${loads.length}, load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)})`
        : '';
    check(`Lighthouse ${page.path}: performance${runs}`, page.performance, '≥ 0.95', (v) => v >= 0.95);
    check(
      `Lighthouse ${page.path}: first contentful paint${runs}`,
      page.firstContentfulPaintMs,
      '≤ 1800 ms',
      (v) => v <= 1800,
      ' ms',
    );
    check(
      `Lighthouse ${page.path}: largest contentful paint${runs}`,
      page.largestContentfulPaintMs,
      '≤ 2500 ms',
      (v) => v <= 2500,
      ' ms',
    );
  }
  // Players as the web app behaves, first: the recorded mix and what it costs the whole cluster.
  if (webMix) {
    check(
      `Web app: API requests per click in steady play (${webMix.recorded.source})`,
      webMix.recorded.requestsPerClick,
      '≤ 1.05',
      (v) => v <= 1.05,
    );
    if (webMix.recorded.profileReadsPerMinute !== null)
      check(
        'Web app: profile reads per minute of steady play',
        webMix.recorded.profileReadsPerMinute,
        '≤ 2',
        (v) => v <= 2,
      );
    const d = webMix.derived;
    checks.push({
      figure: `Cluster CPU per click, web app as it behaves / before (lean ${fmt(webMix.points[0]?.clusterCpuMsPerClick, ' ms')} + profile reads at ${fmt(d.cpuPerProfileReadMs, ' ms')} each); players per core at ${PRESSES_PER_SECOND} presses/s`,
      value: `${fmt(d.recordedCpuMsPerClick, ' ms')} (${Math.round(d.recordedPlayersPerCore)}) / ${fmt(d.beforeCpuMsPerClick, ' ms')} (${Math.round(d.beforePlayersPerCore)})`,
      target: 'figure',
      met: null,
    });
    for (const point of webMix.points)
      checks.push({
        figure: `Cluster CPU per click, ${point.name} (players per core at ${PRESSES_PER_SECOND} presses/s)`,
        value: `${fmt(point.clusterCpuMsPerClick, ' ms')} (${Math.round(point.playersPerCore)})`,
        target: 'figure',
        met: null,
      });
  }
  // What ending sessions for real costs each money or account request (the click path never asks auth).
  if (sessionCheck)
    checks.push({
      figure: `Fresh session check per money or account request: the account read with its session and security version / the account alone (${sessionCheck.accounts} accounts, ${sessionCheck.refreshTokens} refresh tokens, ${sessionCheck.queriesEach} queries each)`,
      value: `${round(sessionCheck.ratio)} (${fmt(sessionCheck.withCheckMicros, ' µs')} / ${fmt(sessionCheck.withoutCheckMicros, ' µs')}, +${fmt(sessionCheck.addedMicros, ' µs')})`,
      target: 'figure',
      met: null,
    });
  // Authority read fresh: what asking auth costs an admin or money request; the click never asks.
  if (freshAuthority)
    checks.push(
      {
        figure: `Fresh authority check per admin or money request: token + auth's current account / token only (${freshAuthority.requestsEach} requests each, one at a time)`,
        value: `${round(freshAuthority.ratio)} (${fmt(freshAuthority.withCheckMicros, ' µs')} / ${fmt(freshAuthority.withoutCheckMicros, ' µs')}, +${fmt(freshAuthority.addedMicros, ' µs')})`,
        target: 'figure',
        met: null,
      },
      {
        figure: `Requests to auth's /internal/account during ${freshAuthority.clicks} clicks`,
        value: String(freshAuthority.authCallsDuringClicks),
        target: '0',
        met: freshAuthority.authCallsDuringClicks === 0,
      },
    );
  check(
    'Click throughput / trivial proxied route',
    throughput?.clickThroughputRatio,
    `>= ${TARGETS.clickThroughputRatio}`,
    (v) => v >= TARGETS.clickThroughputRatio,
  );
  check(
    'Redis commands per accepted click',
    throughput?.chosen.redisCommandsPerClick,
    `<= ${TARGETS.redisCommandsPerClick}`,
    (v) => v <= TARGETS.redisCommandsPerClick,
  );
  const at =
    fanout.find((p) => p.requested === TARGETS.clickToScreenAt) ??
    fanout.find((p) => p.requested >= TARGETS.clickToScreenAt);
  check(
    `Click to screen p99 at ${at ? at.connected : TARGETS.clickToScreenAt} clients`,
    at?.clickToScreen.p99Ms,
    `<= ${tickMs + TARGETS.clickToScreenSlackMs} ms (tick + ${TARGETS.clickToScreenSlackMs})`,
    (v) => v <= tickMs + TARGETS.clickToScreenSlackMs,
    ' ms',
  );
  const largest = fanout.find((p) => p.requested >= 5000);
  if (largest) {
    checks.push({
      figure: `Click to screen p99 at ${largest.connected} clients, with the clicks/s it took`,
      value: `${fmt(largest.clickToScreen.p99Ms, ' ms')} at ${fmt(largest.clicksPerSecond)} clicks/s`,
      target: `<= ${tickMs + TARGETS.largestSlackMs} ms (tick + ${TARGETS.largestSlackMs}) at >= ${TARGETS.largestClicksPerSecond} clicks/s`,
      met:
        largest.clickToScreen.p99Ms === null
          ? null
          : largest.clickToScreen.p99Ms <= tickMs + TARGETS.largestSlackMs &&
            largest.clicksPerSecond >= TARGETS.largestClicksPerSecond,
    });
  }
  for (const p of fanout) {
    const v = p.cpuMicrosPerMessage;
    checks.push({
      figure: `Realtime CPU per delivered message at ${p.connected} clients (× a bare ws server's, same sockets)`,
      value: `${fmt(v, ' µs')}${p.baseline ? ` (${fmt(p.cpuRatioToBaseline)}× ${fmt(p.baseline.cpuMicrosPerMessage, ' µs')})` : ''}`,
      target: `<= ${TARGETS.cpuMicrosPerMessage} µs`,
      met: v === null ? null : v <= TARGETS.cpuMicrosPerMessage,
    });
  }
  for (const p of fanout) {
    check(
      `Bytes per second per socket at ${p.connected} clients (${settings.broadcastHz} ticks/s)`,
      p.bytesPerSocketPerSecond,
      `<= ${TARGETS.bytesPerSocketPerSecond} B/s`,
      (v) => v <= TARGETS.bytesPerSocketPerSecond,
      ' B/s',
    );
  }
  for (const ol of openLoop) {
    const where = viaLabel(ol.via);
    check(
      `Open loop, ${where}: sustained clicks/s with p99 click to screen <= ${TARGETS.openLoopP99Ms} ms, ${ol.listeners} listening sockets`,
      ol.sustainedRate,
      `>= ${TARGETS.openLoopSustainedRate}`,
      (v) => v >= TARGETS.openLoopSustainedRate,
    );
    const knee = ol.sustainedRate ?? 0;
    const of = ol.sustainedRate === null ? 'the lowest rate tried (no knee)' : 'the knee';
    for (const { factor, point } of ol.overload) {
      check(
        `Open loop, ${where}, at ${factor}× ${of} (${point.rate}/s offered): goodput / knee`,
        knee > 0 ? point.acceptedPerSecond / knee : null,
        `>= ${TARGETS.overloadGoodputShare}`,
        (v) => v >= TARGETS.overloadGoodputShare,
      );
      check(
        `Open loop, ${where}, at ${factor}× ${of}: p99 click to screen of accepted clicks`,
        point.clickToScreenP99Ms,
        `<= ${TARGETS.openLoopP99Ms} ms`,
        (v) => v <= TARGETS.openLoopP99Ms,
        ' ms',
      );
      check(
        `Open loop, ${where}, at ${factor}× ${of}: refusal answered, p99 (${Math.round(point.refusedPerSecond)} refused/s)`,
        point.refusedPerSecond > 0 ? point.refusalP99Ms : null,
        `<= ${TARGETS.refusalP99Ms} ms`,
        (v) => v <= TARGETS.refusalP99Ms,
        ' ms',
      );
      checks.push({
        figure: `Open loop, ${where}, at ${factor}× ${of}: counter moved minus accepted clicks / duplicate ordinals / unanswered`,
        value: `${point.counterDrift} / ${point.duplicateOrdinals} / ${point.failed}`,
        target: '0 / 0 / 0',
        met: point.counterDrift === 0 && point.duplicateOrdinals === 0 && point.failed === 0,
      });
      checks.push({
        figure: `Open loop, ${where}, at ${factor}× ${of}: refusals with Retry-After and an error message`,
        value: `${point.refusalsWithRetryAfter} and ${point.refusalsWithMessage} of ${point.refused}`,
        target: 'all',
        met: point.refusalsWithRetryAfter === point.refused && point.refusalsWithMessage === point.refused,
      });
    }
  }
  for (const r of refusals) {
    const where = viaLabel(r.via);
    check(
      `Players (${r.playerRate} clicks/s open loop, honouring Retry-After) beside ${IMPOLITE_CONNECTIONS} closed-loop connections that ignore it, ${where}: goodput / alone (same run)`,
      r.goodputRatio,
      `>= ${TARGETS.impoliteGoodputShare}`,
      (v) => v >= TARGETS.impoliteGoodputShare,
    );
    checks.push({
      figure: `Players refused early (429) beside them, ${where}`,
      value: String(r.beside.players429),
      target: '0',
      met: r.beside.players429 === 0,
    });
    checks.push({
      figure: `Gateway CPU per early refusal / per accepted click (each less the idle CPU), ${where}`,
      value: `${fmt(r.cpuMicrosPerRefusal, ' µs')} / ${fmt(r.cpuMicrosPerAccepted, ' µs')} = ${fmt(
        r.cpuMicrosPerRefusal !== null && r.cpuMicrosPerAccepted
          ? r.cpuMicrosPerRefusal / r.cpuMicrosPerAccepted
          : null,
      )}`,
      target: 'figure',
      met: null,
    });
  }
  if (input.bursts) checks.push(...burstChecks(input.bursts));
  if (roundEnd) {
    checks.push({
      figure: `Round end: winners recorded / winning answers / clients told (of ${roundEnd.sockets})`,
      value: `${roundEnd.winners} / ${roundEnd.winningAnswers} / ${roundEnd.received}`,
      target: `1 / 1 / ${roundEnd.sockets}, no duplicates`,
      met:
        roundEnd.winners === 1 &&
        roundEnd.winningAnswers === 1 &&
        roundEnd.received === roundEnd.sockets &&
        roundEnd.duplicates === 0,
    });
  }
  checks.push(...crowdChecks(input.crowd));

  return {
    date: input.date.toISOString(),
    machine: input.machine,
    profile: settings.profile,
    clickThroughputRatio: round(throughput?.clickThroughputRatio),
    clicksPerSecond: round(throughput?.chosen.okPerSecond),
    redisIncrRatio: round(throughput?.redisIncrRatio),
    redisCommandsPerClick: round(throughput?.chosen.redisCommandsPerClick),
    tickMs,
    observedTickMs: byCount((p) => round(p.observedTickMs)),
    clickToScreen: byCount((p) => ({
      p50Ms: round(p.clickToScreen.p50Ms),
      p99Ms: round(p.clickToScreen.p99Ms),
    })),
    cpuMicrosPerMessage: byCount((p) => round(p.cpuMicrosPerMessage)),
    cpuRatioToBaseline: byCount((p) => round(p.cpuRatioToBaseline ?? null)),
    bytesPerSocketPerSecond: byCount((p) => round(p.bytesPerSocketPerSecond)),
    memoryPerSocketBytes: byCount((p) => round(p.memoryPerSocketBytes)),
    roundEnd: roundEnd
      ? {
          p99Ms: round(roundEnd.p99Ms),
          p50Ms: round(roundEnd.p50Ms),
          maxMs: round(roundEnd.maxMs),
          winners: roundEnd.winners,
          clients: roundEnd.sockets,
          received: roundEnd.received,
          duplicates: roundEnd.duplicates,
          winningAnswers: roundEnd.winningAnswers,
        }
      : { p99Ms: null, winners: null },
    unreached: fanout
      .filter((p) => p.connected < p.requested)
      .map((p) => ({ requested: p.requested, connected: p.connected })),
    openLoop: openLoop.map((ol) => ({
      via: ol.via,
      sustainedRate: ol.sustainedRate,
      overload: ol.overload.map(({ factor, point }) => ({
        factor,
        offered: point.rate,
        goodput: Math.round(point.acceptedPerSecond),
        refusedPerSecond: Math.round(point.refusedPerSecond),
        acceptedClickToScreenP99Ms: round(point.clickToScreenP99Ms),
        refusalP99Ms: round(point.refusalP99Ms),
        counterDrift: point.counterDrift,
        duplicateOrdinals: point.duplicateOrdinals,
        unanswered: point.failed,
      })),
    })),
    refusals: refusals.map((r) => ({
      via: r.via,
      goodputRatio: round(r.goodputRatio),
      playersRefusedEarly: r.beside.players429,
      cpuMicrosPerAccepted: round(r.cpuMicrosPerAccepted),
      cpuMicrosPerRefusal: round(r.cpuMicrosPerRefusal),
    })),
    checks,
    details: {
      settings,
      throughput,
      fanout,
      roundEnd,
      openLoop,
      refusals,
      webMix,
      lighthouse,
      sessionCheck,
      crowd: input.crowd,
      freshAuthority,
      bursts: input.bursts,
      scenarios: input.scenarios,
      errors: input.errors,
      durationS: input.durationS,
    },
  };
}

export function markdown(results: Results): string {
  const lines: string[] = [];
  const t = results.details.throughput;
  lines.push(`# Benchmark results (${results.profile} run)`);
  lines.push('');
  lines.push(`${results.date.slice(0, 19).replace('T', ' ')} UTC on ${results.machine.description}.`);
  lines.push('');
  lines.push('| Figure | Value | Target | Met |');
  lines.push('|---|---|---|---|');
  for (const c of results.checks)
    lines.push(
      `| ${c.figure} | ${c.value} | ${c.target} | ${c.met === null ? 'not measured' : c.met ? 'yes' : '**no**'} |`,
    );
  lines.push('');
  lines.push('| Reference figure | Value |');
  lines.push('|---|---|');
  lines.push(
    `| Accepted clicks per second (through the gateway, ${t?.chosen.connections ?? '?'} keep-alive connections, ${results.details.settings.users} users) | ${fmt(results.clicksPerSecond)} |`,
  );
  lines.push(
    `| Click latency at that load, p50 / p99 | ${fmt(t?.chosen.p50Ms, ' ms')} / ${fmt(t?.chosen.p99Ms, ' ms')}${t && !t.withinBound ? ' (no step kept p99 under the bound)' : ''} |`,
  );
  lines.push(
    `| Clicks and trivial route in alternation (${t?.pairs.length ?? '?'} pairs at ${t?.chosen.connections ?? '?'} connections): clicks / trivial route through a second gateway, same settings | ${fmt(t?.pairedClicksPerSecond, ' clicks/s')} / ${fmt(t?.baseline.okPerSecond, ' req/s')} (p99 up to ${fmt(t?.baseline.p99Ms, ' ms')}) |`,
  );
  lines.push(`| redis-benchmark -t incr, same Redis | ${fmt(t?.redisIncrPerSecond, ' req/s')} |`);
  lines.push(`| Clicks per second / Redis INCR per second | ${fmt(results.redisIncrRatio)} |`);
  lines.push(`| Tick (BROADCAST_HZ=${results.details.settings.broadcastHz}) | ${results.tickMs} ms |`);
  lines.push(
    `| Round end: winning click's answer to each client's winner event, p50 / p99 / last (${results.roundEnd.clients ?? '?'} clients) | ` +
      `${fmt(results.roundEnd.p50Ms, ' ms')} / ${fmt(results.roundEnd.p99Ms, ' ms')} / ${fmt(results.roundEnd.maxMs, ' ms')} |`,
  );
  lines.push('');
  if (results.details.fanout.length > 0) {
    lines.push(
      `Cost curve (clicks asked at ${results.details.settings.fanoutClickRate ? `${results.details.settings.fanoutClickRate}/s` : 'half the maximum rate'} while the clients watch; the baseline is a bare ws server sending the same sockets one frame per tick):`,
    );
    lines.push('');
    lines.push(
      '| Clients | Clicks/s | Click to screen p50 / p99 | Tick seen | Tick writes p50 / p99 (≤) | Messages/s | Realtime CPU | CPU per message | Bare ws: CPU per message | Ratio | Memory per socket | Bytes/s per socket |',
    );
    lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const p of results.details.fanout) {
      lines.push(
        `| ${p.connected}${p.connected < p.requested ? ` of ${p.requested}` : ''} | ${fmt(p.clicksPerSecond)} | ${fmt(p.clickToScreen.p50Ms)} / ${fmt(p.clickToScreen.p99Ms, ' ms')} | ${fmt(p.observedTickMs, ' ms')} | ${p.tickWriteMs ? `${fmt(p.tickWriteMs.p50)} / ${fmt(p.tickWriteMs.p99, ' ms')}` : 'n/a'} | ` +
          `${fmt(p.messagesPerSecond)} | ${fmt(p.realtimeCpuShare * 100, '%')} | ${fmt(p.cpuMicrosPerMessage, ' µs')} | ${fmt(p.baseline?.cpuMicrosPerMessage, ' µs')} | ${fmt(p.cpuRatioToBaseline)} | ${fmt((p.memoryPerSocketBytes ?? 0) / 1024, ' KiB')} | ${fmt(p.bytesPerSocketPerSecond, ' B')} |`,
      );
    }
    lines.push('');
    lines.push(...budgetTable(results.details.fanout, results.tickMs));
    const names = [...new Set(results.details.fanout.flatMap((p) => Object.keys(p.coresByProcess ?? {})))];
    if (names.length > 0) {
      lines.push("Where the CPU went while the clients watched (cores used, of the machine's):");
      lines.push('');
      lines.push(`| Clients | ${names.join(' | ')} | Total |`);
      lines.push(`|---|${names.map(() => '---|').join('')}---|`);
      for (const p of results.details.fanout) {
        const cores = names.map((n) => p.coresByProcess?.[n] ?? null);
        const total = cores.reduce<number>((sum, c) => sum + (c ?? 0), 0);
        lines.push(`| ${p.connected} | ${cores.map((c) => fmt(c)).join(' | ')} | ${fmt(total)} |`);
      }
      lines.push('');
    }
  }
  for (const ol of results.details.openLoop) {
    lines.push(
      `Open loop, ${viaLabel(ol.via)} (clicks on a fixed schedule, latency from each click's scheduled time; ${ol.listeners} sockets listening, ${ol.timed} timed; sweep, then ${ol.overload.map((o) => `${o.factor}×`).join(' and ')} ${ol.sustainedRate === null ? `the lowest rate tried (${ol.overloadBase}/s; no rate held)` : 'the knee'}):`,
    );
    lines.push('');
    lines.push(
      '| Offered/s | Accepted/s | Refused/s | Unanswered | Click to screen p50 / p99 | Seen within 2 s | Answer p99 (accepted) | Refusal p99 | Counter drift | Duplicates | Generator lag p99 | Held |',
    );
    lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const p of [...ol.sweep, ...ol.overload.map((o) => o.point)])
      lines.push(
        `| ${p.rate} | ${fmt(p.acceptedPerSecond)} | ${fmt(p.refusedPerSecond)} | ${p.failed} | ${fmt(p.clickToScreenP50Ms)} / ${fmt(p.clickToScreenP99Ms, ' ms')} | ${fmt(p.seenWithin2s * 100, ' %')} | ` +
          `${fmt(p.acceptedAnswerP99Ms, ' ms')} | ${fmt(p.refusalP99Ms, ' ms')} | ${p.counterDrift} | ${p.duplicateOrdinals} | ${fmt(p.sendLagP99Ms, ' ms')} | ${p.held ? 'yes' : 'no'} |`,
      );
    lines.push('');
    lines.push(
      'CPU per accepted click (µs) and cores used in each step (the whole step, clicks and the listening sockets; the click generator and the socket clients are the load, on the same cores):',
    );
    lines.push('');
    lines.push(
      '| Offered/s | Gateway µs/click | Game µs/click | Redis µs/click | Realtime µs/message | Cores: gateway / game / realtime / Redis / NATS | Cores: generator / socket clients |',
    );
    lines.push('|---|---|---|---|---|---|---|');
    for (const p of [...ol.sweep, ...ol.overload.map((o) => o.point)])
      lines.push(
        `| ${p.rate} | ${fmt(p.cpuMicrosPerClick?.gateway)} | ${fmt(p.cpuMicrosPerClick?.game)} | ${fmt(p.cpuMicrosPerClick?.redis)} | ${fmt(p.realtimeCpuMicrosPerMessage)} | ` +
          `${['gateway', 'game', 'realtime', 'redis', 'nats'].map((n) => fmt(p.cores?.[n])).join(' / ')} | ` +
          `${['generator', 'sockets'].map((n) => fmt(p.cores?.[n])).join(' / ')} |`,
      );
    lines.push('');
    lines.push(
      `Sustained rate (the knee), ${viaLabel(ol.via)}: ${ol.sustainedRate ?? 'none held'} clicks/s.`,
    );
    lines.push('');
  }
  for (const r of results.details.refusals ?? []) {
    lines.push(
      `Players beside ${IMPOLITE_CONNECTIONS} connections that ignore Retry-After, ${viaLabel(r.via)} (${r.listeners} sockets listening; players ${r.playerRate} clicks/s open loop, each waiting out its Retry-After; ${r.alone.seconds} s a phase):`,
    );
    lines.push('');
    lines.push(
      '| Phase | Players accepted/s | Players shed (503) | Players refused early (429) | Impolite accepted | Impolite shed | Impolite refused early | Gateway CPU s |',
    );
    lines.push('|---|---|---|---|---|---|---|---|');
    for (const [name, p] of [
      ['players alone', r.alone],
      [`players + ${IMPOLITE_CONNECTIONS} impolite`, r.beside],
      ['idle (sockets listening, no clicks)', r.idle],
      [`${IMPOLITE_CONNECTIONS} impolite alone, refusals not held`, r.impoliteAlone],
    ] as const)
      lines.push(
        `| ${name} | ${fmt(p.playersOk / p.seconds)} | ${p.players503} | ${p.players429} | ${p.impoliteOk} | ${p.impolite503} | ${p.impolite429} | ${fmt(p.gatewayCpuS)} |`,
      );
    lines.push('');
  }
  if (t) {
    lines.push('Click throughput by concurrency:');
    lines.push('');
    lines.push('| Connections | Clicks/s | p50 | p99 | non-2xx | Redis commands/click |');
    lines.push('|---|---|---|---|---|---|');
    for (const s of t.steps)
      lines.push(
        `| ${s.connections} | ${fmt(s.okPerSecond)} | ${fmt(s.p50Ms, ' ms')} | ${fmt(s.p99Ms, ' ms')} | ${s.non2xx} | ${fmt(s.redisCommandsPerClick)} |`,
      );
    lines.push('');
    const top = Object.entries(t.chosen.redisByCommand)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8);
    lines.push(
      `Redis commands at the chosen load: ${top.map(([name, n]) => `${name} ${n}`).join(', ')} for ${t.chosen.ok} accepted clicks.`,
    );
    lines.push('');
  }
  if (results.unreached.length > 0) {
    lines.push(
      `Client counts not reached: ${results.unreached.map((u) => `${u.requested} (${u.connected} connected)`).join(', ')}.`,
    );
    lines.push('');
  }
  lines.push(...scenarioTable(results.details.scenarios ?? []));
  if (results.details.errors.length > 0) {
    lines.push('Scenarios that failed:');
    lines.push('');
    for (const e of results.details.errors) lines.push(`- ${e}`);
    lines.push('');
  }
  lines.push(
    `Sockets connected through the ${results.machine.socketVia} (${results.machine.socketClient === 'socket.io' ? 'socket.io-client' : "Socket.IO's protocol on bare websockets"}); every machine-dependent figure is a ratio to a baseline of the same run. Whole run: ${Math.round(results.details.durationS)} s.`,
  );
  return lines.join('\n') + '\n';
}

/**
 * The latency budget (stages.ts) beside what each stage measured at each client count of the cost curve:
 * p50 / p99 (histogram bucket bounds, so "at most"), and whether the p99 is within the stage's share.
 */
export function budgetTable(points: FanoutPoint[], tickMs: number): string[] {
  const stages = points[0]?.stages ?? [];
  if (stages.length === 0) return [];
  const lines = [
    `The latency budget of a click, button to screen (p99 ≤ ${clickToScreenBudgetMs(tickMs)} ms, the tick + 25; each stage's p50 / p99 as bucket bounds, at the cost curve's click rate; docs/performance.md, "The latency budget"):`,
    '',
    `| Stage | Budget (p99) | ${points.map((p) => `${p.connected} clients`).join(' | ')} |`,
    `|---|---|${points.map(() => '---|').join('')}`,
  ];
  const cell = (f: StageFigure | undefined) =>
    !f || f.samples === 0
      ? 'n/a'
      : `${fmt(f.p50Ms)} / ${fmt(f.p99Ms, ' ms')} ${f.p99Ms !== null && f.p99Ms <= f.budgetMs ? 'ok' : 'over'}`;
  for (const [i, s] of stages.entries())
    lines.push(`| ${s.stage} | ${s.budgetMs} ms | ${points.map((p) => cell(p.stages[i])).join(' | ')} |`);
  lines.push(
    `| tunnel and the browser's socket | ${TUNNEL_BUDGET_MS} ms | ${points.map(() => 'in the whole').join(' | ')} |`,
  );
  lines.push(
    `| **click to screen, whole** | ${clickToScreenBudgetMs(tickMs)} ms | ${points
      .map(
        (p) =>
          `${fmt(p.clickToScreen.p50Ms)} / ${fmt(p.clickToScreen.p99Ms, ' ms')} ${p.clickToScreen.p99Ms !== null && p.clickToScreen.p99Ms <= clickToScreenBudgetMs(tickMs) ? 'ok' : 'over'}`,
      )
      .join(' | ')} |`,
  );
  lines.push('');
  return lines;
}
