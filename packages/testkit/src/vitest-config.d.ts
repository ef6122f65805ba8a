import type { UserConfig } from 'vitest/config';

export function serviceTestConfig(): UserConfig;
