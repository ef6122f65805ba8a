import { baseEnvSchema, env, parseConfig } from '@omc/service-kit';

export const configSchema = baseEnvSchema.extend({
  PORT: env.port(3002),
});

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(source: NodeJS.ProcessEnv = process.env) {
  return parseConfig(configSchema, source);
}
