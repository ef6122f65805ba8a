import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { createI18n, setAppI18n } from '../i18n';

beforeEach(() => {
  window.localStorage.clear();
  setAppI18n(createI18n('es'));
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});
