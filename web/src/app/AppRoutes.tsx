import { Navigate, Route, Routes } from 'react-router-dom';
import { AuditLogPage } from '../features/admin/AuditPage';
import { PlayersPage } from '../features/admin/PlayersPage';
import { RoleManagerPage } from '../features/admin/RoleManagerPage';
import { ConfirmEmailPage, UndoEmailChangePage } from '../features/auth/EmailChangePages';
import { ResetPasswordPage } from '../features/auth/ResetPasswordPage';
import { VerifyEmailPage } from '../features/auth/VerifyEmailPage';
import { GamePage } from '../features/game/GamePage';
import { ProfilePage } from '../features/profile/ProfilePage';
import { WelcomePage } from '../features/welcome/WelcomePage';
import { WinnersPage } from '../features/winners/WinnersPage';
import { GameRoute, RequireAdmin, RequireToken, WelcomeRoute } from './guards';

export function AppRoutes() {
  return (
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
        path="/admin/audit"
        element={
          <RequireAdmin>
            <AuditLogPage />
          </RequireAdmin>
        }
      />
      <Route path="*" element={<Navigate to="/" replace />} />
    </Routes>
  );
}
