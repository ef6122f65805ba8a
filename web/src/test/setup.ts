import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { createI18n, setAppI18n } from '../i18n';

// The app loads these pages when opened (app/AppRoutes.tsx); loading them here first, once per file,
// lets a lazy page show as soon as a test opens it instead of after its first compile.
await Promise.all([
  import('../features/admin/PlayerMoneyPage'),
  import('../features/admin/PlayersPage'),
  import('../features/admin/RoleManagerPage'),
  import('../features/auth/EmailChangePages'),
  import('../features/auth/ResetPasswordPage'),
  import('../features/auth/VerifyEmailPage'),
  import('../features/profile/ProfilePage'),
  import('../features/winners/WinnersPage'),
]);

beforeEach(() => {
  window.localStorage.clear();
  setAppI18n(createI18n('es'));
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});
