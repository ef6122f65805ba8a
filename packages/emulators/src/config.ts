// The emulator's environment, read once: PORT (3100), HOST (127.0.0.1), LOG_LEVEL (info), SETTLE_AFTER_MS
// (0: sales settle only by the test controls; else Braintree's batch settles each this long after it).
export interface EmulatorConfig {
  port: number;
  host: string;
  logLevel: string;
  settleAfterMs: number;
}

export function loadEmulatorConfig(source: NodeJS.ProcessEnv = process.env): EmulatorConfig {
  const problems: string[] = [];
  const rawPort = source.PORT ?? '3100';
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port > 65535)
    problems.push(`PORT: must be a port number (0-65535), got "${rawPort}"`);
  const logLevel = source.LOG_LEVEL ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel))
    problems.push(`LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent`);
  const rawSettle = source.SETTLE_AFTER_MS ?? '0';
  const settleAfterMs = Number(rawSettle);
  if (!/^\d+$/.test(rawSettle) || settleAfterMs > 86_400_000)
    problems.push(`SETTLE_AFTER_MS: must be milliseconds (0-86400000), got "${rawSettle}"`);
  if (problems.length > 0)
    throw new Error(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return { port, host: source.HOST ?? '127.0.0.1', logLevel, settleAfterMs };
}
