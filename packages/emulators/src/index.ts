export {
  buildEmulator,
  NO_MONEY_HEADER,
  NO_MONEY_NOTICE,
  type Emulator,
  type EmulatorCall,
  type EmulatorOptions,
} from './app.js';
export { startEmulator, EmulatorClient, type RunningEmulator } from './client.js';
export { FAULT_TARGETS, type FaultRequest, type FaultTarget } from './faults.js';
export { TEST_NONCES } from './braintree/nonces.js';
export { signWebhookPayload, WEBHOOK_KINDS, type WebhookKind } from './braintree/gateway.js';
