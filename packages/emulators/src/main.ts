// The provider emulators as a process: `node --import tsx src/main.ts`.
import { buildEmulator, NO_MONEY_NOTICE } from './app.js';
import { loadEmulatorConfig, type EmulatorConfig } from './config.js';

let config: EmulatorConfig;
try {
  config = loadEmulatorConfig();
} catch (error) {
  console.error(`[emulators] ${(error as Error).message}`);
  process.exit(78);
}

const emulator = await buildEmulator({
  logger: { level: config.logLevel },
  settleAfterMs: config.settleAfterMs,
});
const close = async () => {
  await emulator.app.close();
  process.exit(0);
};
process.once('SIGTERM', close);
process.once('SIGINT', close);
await emulator.app.listen({ port: config.port, host: config.host });
emulator.app.log.warn(
  `${NO_MONEY_NOTICE} Braintree gateway API and PayPal OAuth + Payouts emulated on http://${config.host}:${config.port}`,
);
console.log(`[emulators] ${NO_MONEY_NOTICE}`);
