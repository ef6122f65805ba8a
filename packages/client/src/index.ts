export * from './client.js';
export * from './operation.js';
export * as operations from './operations.js';
