export * from './client.js';
export * from './operations.js';
