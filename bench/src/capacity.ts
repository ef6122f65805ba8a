// The capacity model of the realtime fleet (docs/performance.md, "A million players"): a process costs a
// fixed share of a core whatever it holds (its timers, its copy of every state, the adapter) plus a cost
// per message it delivers. Both come from one process measured alone; the model then predicts what N
// processes delivering the same messages cost, and the fleet scenario measures it after the prediction.

/** What one measured run of a fleet gives: its CPU over a window and the messages it delivered. */
export interface FleetRun {
  processes: number;
  /** Messages delivered in the window. */
  messages: number;
  /** Realtime CPU per delivered message over the window, in µs. */
  cpuMicrosPerMessage: number | null;
  /** CPU (cores) each process used with clicks flowing and no client connected. */
  idleCoresPerProcess: number;
  /** The same with one client listening: the fixed share of a process that has anyone to send to. */
  listeningCoresPerProcess?: number;
}

export interface ProcessCost {
  /** Cores a process uses whatever it holds. */
  fixedCores: number;
  /** CPU per delivered message beyond the fixed share, in µs. */
  microsPerMessage: number;
  /** Messages a second the measured run delivered. */
  messagesPerSecond: number;
}

/** A process's cost, from a run of `windowS` seconds (one process measured alone). */
export function processCost(run: FleetRun, windowS: number): ProcessCost | null {
  if (run.cpuMicrosPerMessage === null || run.messages <= 0 || windowS <= 0) return null;
  const fixedCores = run.listeningCoresPerProcess ?? run.idleCoresPerProcess;
  const cpuSeconds = (run.cpuMicrosPerMessage * run.messages) / 1e6;
  const fixedSeconds = run.processes * fixedCores * windowS;
  return {
    fixedCores,
    microsPerMessage: Math.max(0, ((cpuSeconds - fixedSeconds) * 1e6) / run.messages),
    messagesPerSecond: run.messages / windowS,
  };
}

/** The CPU per delivered message, in µs, that `processes` processes sharing the same messages cost. */
export function predictMicrosPerMessage(cost: ProcessCost, processes: number): number {
  return (processes * cost.fixedCores * 1e6) / cost.messagesPerSecond + cost.microsPerMessage;
}

/** Cores a fleet of `processes` needs to deliver `messagesPerSecond`. */
export function fleetCores(cost: ProcessCost, processes: number, messagesPerSecond: number): number {
  return processes * cost.fixedCores + (messagesPerSecond * cost.microsPerMessage) / 1e6;
}

/** How far a prediction was from what was then measured, as a fraction of the measurement. */
export function predictionError(predicted: number, measured: number | null): number | null {
  if (measured === null || measured <= 0) return null;
  return Math.abs(predicted - measured) / measured;
}
