import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router-dom';
import { GamePage } from '../features/game/GamePage';
import { WelcomePage } from '../features/welcome/WelcomePage';
import { GameRoute, RequireAdmin, RequireToken, WelcomeRoute } from './guards';

// The first screens (welcome and game) are in the entry; every other page loads when it is opened, so a
// phone's first paint waits for none of them (the bundle budget test counts what / and /game load).
const RoleManagerPage = lazy(() =>
  import('../features/admin/RoleManagerPage').then((m) => ({ default: m.RoleManagerPage })),
);
const PlayersPage = lazy(() =>
  import('../features/admin/PlayersPage').then((m) => ({ default: m.PlayersPage })),
);
const PlayerMoneyPage = lazy(() =>
  import('../features/admin/PlayerMoneyPage').then((m) => ({ default: m.PlayerMoneyPage })),
);
const AuditLogPage = lazy(() =>
  import('../features/admin/AuditPage').then((m) => ({ default: m.AuditLogPage })),
);
const ConfirmEmailPage = lazy(() =>
  import('../features/auth/EmailChangePages').then((m) => ({ default: m.ConfirmEmailPage })),
);
const UndoEmailChangePage = lazy(() =>
  import('../features/auth/EmailChangePages').then((m) => ({ default: m.UndoEmailChangePage })),
);
const ConfirmPayoutEmailPage = lazy(() =>
  import('../features/winnings/ConfirmPayoutEmailPage').then((m) => ({ default: m.ConfirmPayoutEmailPage })),
);
const ResetPasswordPage = lazy(() =>
  import('../features/auth/ResetPasswordPage').then((m) => ({ default: m.ResetPasswordPage })),
);
const VerifyEmailPage = lazy(() =>
  import('../features/auth/VerifyEmailPage').then((m) => ({ default: m.VerifyEmailPage })),
);
const ProfilePage = lazy(() =>
  import('../features/profile/ProfilePage').then((m) => ({ default: m.ProfilePage })),
);
const WinnersPage = lazy(() =>
  import('../features/winners/WinnersPage').then((m) => ({ default: m.WinnersPage })),
);

export function AppRoutes() {
  return (
    <Suspense fallback={null}>
      <Routes>
        <Route
          path="/"
          element={
            <WelcomeRoute>
              <WelcomePage />
            </WelcomeRoute>
          }
        />
        <Route
          path="/game"
          element={
            <GameRoute>
              <GamePage />
            </GameRoute>
          }
        />
        <Route path="/winners" element={<WinnersPage />} />
        <Route path="/reset-password" element={<ResetPasswordPage />} />
        <Route path="/verify-email" element={<VerifyEmailPage />} />
        <Route path="/confirm-email" element={<ConfirmEmailPage />} />
        <Route path="/undo-email-change" element={<UndoEmailChangePage />} />
        <Route path="/confirm-payout-email" element={<ConfirmPayoutEmailPage />} />
        <Route
          path="/profile"
          element={
            <RequireToken>
              <ProfilePage />
            </RequireToken>
          }
        />
        <Route
          path="/admin/roles"
          element={
            <RequireAdmin>
              <RoleManagerPage />
            </RequireAdmin>
          }
        />
        <Route
          path="/admin/players"
          element={
            <RequireAdmin>
              <PlayersPage />
            </RequireAdmin>
          }
        />
        <Route
          path="/admin/players/:id/purchases"
          element={
            <RequireAdmin>
              <PlayerMoneyPage />
            </RequireAdmin>
          }
        />
        <Route
          path="/admin/audit"
          element={
            <RequireAdmin>
              <AuditLogPage />
            </RequireAdmin>
          }
        />
        <Route path="*" element={<Navigate to="/" replace />} />
      </Routes>
    </Suspense>
  );
}
