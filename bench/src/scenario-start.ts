// What each scenario starts from, checked right before it runs: no process an earlier scenario started
// is still running (any found is listed, stopped by its PID and awaited), the CPUs are idle at the level
// its settings ask (sampled from /proc/stat, waiting up to a bound), and every load user holds an access
// token minted for it (tokens.ts). A scenario whose start was not so is not measured: it is recorded as
// invalid with the reason, and the report says so in place of its figures.
import type { BenchSystem } from './bench-system.js';
import {
  describeQuiet,
  leftoverProcesses,
  readProcessTable,
  stopLeftovers,
  waitForQuiet,
  type QuietOptions,
} from './quiet.js';
import type { BenchSettings, Scenario } from './settings.js';
import { mintFreshTokens, tokensHeld } from './tokens.js';

/** One scenario's start and end, as the results keep it. */
export interface ScenarioRecord {
  scenario: Scenario;
  /** The CPUs' idle share when it started, in percent (the last sample), and the level asked. */
  idlePercent: number | null;
  needPercent: number;
  /** Seconds spent waiting for the quiet level. */
  quietWaitS: number;
  /** Processes of earlier scenarios found still running when it was due ("pid command"). */
  leftovers: string[];
  /** Seconds the scenario ran (null: not run). */
  durationS: number | null;
  /** Why it was not measured (absent: measured). */
  invalid?: string;
}

/** A record of a scenario not (yet) started. */
export const unstarted = (scenario: Scenario): ScenarioRecord => ({
  scenario,
  idlePercent: null,
  needPercent: 0,
  quietWaitS: 0,
  leftovers: [],
  durationS: null,
});

/** The quiet level a scenario asks: Lighthouse's CPU slowdown multiplies any other load, so it asks more. */
export function quietOptions(settings: BenchSettings, scenario: Scenario): QuietOptions {
  const { quiet } = settings;
  const level = scenario === 'lighthouse' ? quiet.lighthouseMinIdlePercent : quiet.minIdlePercent;
  return {
    minIdlePercent: quiet.minIdlePercent <= 0 ? 0 : level,
    sampleMs: quiet.sampleS * 1000,
    maxWaitMs: quiet.maxWaitS * 1000,
  };
}

export interface ScenarioStart {
  record: ScenarioRecord;
  /** The earliest expiry of the tokens minted for it (null when it does not run). */
  tokensExpireAt: number | null;
}

/**
 * Checks the start of `scenario`: stops leftovers (any process under this run that is not one of the
 * standing ones), mints every load user a new token, runs the scenario's preparation if it has one
 * (what must be in place before it is measured), then waits for the quiet level, last, so that nothing
 * of the start itself weighs on the measurement. The record's `invalid` says why the scenario must not run.
 */
export async function startScenario(
  scenario: Scenario,
  bs: BenchSystem,
  settings: BenchSettings,
  standing: () => Set<number>,
  log: (line: string) => void,
  prepare?: () => Promise<void>,
): Promise<ScenarioStart> {
  const record = unstarted(scenario);
  const leftovers = leftoverProcesses(readProcessTable(), process.pid, standing());
  if (leftovers.length > 0) {
    record.leftovers = leftovers.map((p) => `${p.pid} ${p.command.slice(0, 120)}`);
    log(`[bench] ${scenario}: processes of an earlier scenario still running, stopped now:`);
    for (const line of record.leftovers) log(`[bench]   ${line}`);
    const stuck = await stopLeftovers(leftovers);
    if (stuck.length > 0) {
      record.invalid = `processes of an earlier scenario would not stop: ${stuck.map((p) => p.pid).join(', ')}`;
      return { record, tokensExpireAt: null };
    }
  }
  const tokensExpireAt = await mintFreshTokens(bs.gatewayUrl, bs.users);
  log(
    `[bench] ${scenario}: ${bs.users.length} load tokens minted, valid until ${new Date(tokensExpireAt).toISOString().slice(11, 19)} UTC`,
  );
  await prepare?.();
  const quiet = await waitForQuiet(quietOptions(settings, scenario));
  record.idlePercent = quiet.idlePercent === null ? null : Math.round(quiet.idlePercent * 10) / 10;
  record.needPercent = quiet.needPercent;
  record.quietWaitS = Math.round(quiet.waitedMs / 100) / 10;
  log(`[bench] ${scenario}: ${describeQuiet(quiet)}`);
  if (!quiet.quiet) {
    record.invalid = `the machine was not quiet: ${quiet.reason}`;
    return { record, tokensExpireAt: null };
  }
  return { record, tokensExpireAt };
}

/** Completes the record once the scenario ran: its duration, and invalid if it outlived its tokens. */
export function finishScenario(start: ScenarioStart, startedAtMs: number, endedAtMs: number): ScenarioRecord {
  const record = { ...start.record, durationS: Math.round((endedAtMs - startedAtMs) / 100) / 10 };
  const held = tokensHeld(start.tokensExpireAt, endedAtMs);
  if (!held.held) record.invalid = held.reason;
  return record;
}
