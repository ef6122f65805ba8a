// The emulator's environment, read once: PORT (3100), HOST (127.0.0.1), LOG_LEVEL (info).
export interface EmulatorConfig {
  port: number;
  host: string;
  logLevel: string;
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
  if (problems.length > 0)
    throw new Error(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return { port, host: source.HOST ?? '127.0.0.1', logLevel };
}
