// The provider emulators as a process: `node --import tsx src/main.ts`, PORT (default 3100), HOST.
import { buildEmulator, NO_MONEY_NOTICE } from './app.js';

const rawPort = process.env.PORT ?? '3100';
const port = Number(rawPort);
if (!/^\d+$/.test(rawPort) || port > 65535) {
  console.error(`[emulators] Invalid configuration:\n  - PORT: must be a port number (0-65535), got "${rawPort}"`);
  process.exit(78);
}
const host = process.env.HOST ?? '127.0.0.1';
const level = process.env.LOG_LEVEL ?? 'info';

const emulator = await buildEmulator({ logger: { level } });
const close = async () => {
  await emulator.app.close();
  process.exit(0);
};
process.once('SIGTERM', close);
process.once('SIGINT', close);
await emulator.app.listen({ port, host });
emulator.app.log.warn(`${NO_MONEY_NOTICE} Braintree gateway API and PayPal OAuth + Payouts emulated on http://${host}:${port}`);
console.log(`[emulators] ${NO_MONEY_NOTICE}`);
