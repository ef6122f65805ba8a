import { isPrivileged } from '@omc/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { PageHeader } from '../../components/PageHeader';
import { useSession } from '../../session/SessionProvider';
import { useProfile } from '../game/useProfile';
import { AdminPotPanel } from './AdminPotPanel';
import { ChangeEmailDialog, ChangePasswordDialog, ChangeUsernameDialog } from './ChangeDialogs';
import { DeleteAccountDialog } from './DeleteAccountDialog';
import { SessionsPanel } from './SessionsPanel';
import { VerifyEmailBanner } from '../auth/VerifyEmailBanner';

type ProfileDialog = 'none' | 'email' | 'password' | 'username' | 'delete';

export function ProfilePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const session = useSession();
  const profile = useProfile();
  const [dialog, setDialog] = useState<ProfileDialog>('none');
  const close = () => setDialog('none');
  const username = profile.data?.username ?? session.username;
  const email = profile.data?.email ?? session.email;
  const role = profile.data?.role ?? session.role;
  const loaded = Boolean(username) && (email !== null || profile.isSuccess);

  return (
    <div className="page page--profile">
      <PageHeader
        actions={
          <button type="button" className="btn btn--ghost" onClick={() => navigate('/game')}>
            {t('common.backToGame')}
          </button>
        }
      />
      <VerifyEmailBanner />
      <main className="panel">
        {!loaded ? (
          <h1 className="panel__title">{t('profile.loading')}</h1>
        ) : (
          <>
            <h1 className="panel__title">
              <span translate="no">{username}</span>
              {isPrivileged(role) ? (
                <span className={`role-badge role-badge--${role}`}>{t(`roles.${role}`)}</span>
              ) : null}
            </h1>
            <dl className="facts">
              <dt>{t('profile.role')}</dt>
              <dd data-testid="profile-role">{role ? t(`roles.${role}`) : '–'}</dd>
              <dt>{t('profile.email')}</dt>
              <dd translate={email ? 'no' : undefined}>{email ?? t('profile.noEmail')}</dd>
              {profile.data?.emailVerified !== undefined ? (
                <>
                  <dt>{t('profile.emailStatus')}</dt>
                  <dd data-testid="email-verified">
                    {profile.data.emailVerified ? t('profile.emailVerified') : t('profile.emailNotVerified')}
                  </dd>
                </>
              ) : null}
              {profile.data?.pendingEmail ? (
                <>
                  <dt>{t('profile.pendingEmail')}</dt>
                  <dd data-testid="pending-email">
                    <span translate="no">{profile.data.pendingEmail}</span> {t('profile.pendingEmailHint')}
                  </dd>
                </>
              ) : null}
            </dl>
          </>
        )}
        <div className="profile-actions">
          <button type="button" className="btn btn--secondary" onClick={() => setDialog('email')}>
            {t('profile.changeEmail')}
          </button>
          <button type="button" className="btn btn--secondary" onClick={() => setDialog('password')}>
            {t('profile.changePassword')}
          </button>
          <button type="button" className="btn btn--secondary" onClick={() => setDialog('username')}>
            {t('profile.changeUsername')}
          </button>
          <button type="button" className="btn btn--danger" onClick={() => setDialog('delete')}>
            {t('profile.deleteAccount')}
          </button>
        </div>
        {role === 'admin' ? (
          <>
            <button type="button" className="btn btn--primary" onClick={() => navigate('/admin/roles')}>
              {t('profile.manageRoles')}
            </button>
            <button type="button" className="btn btn--secondary" onClick={() => navigate('/admin/players')}>
              {t('profile.players')}
            </button>
            <button type="button" className="btn btn--secondary" onClick={() => navigate('/admin/audit')}>
              {t('profile.auditLog')}
            </button>
            {profile.data ? <AdminPotPanel profile={profile.data} /> : null}
          </>
        ) : null}
        <SessionsPanel />
      </main>
      <ChangeEmailDialog open={dialog === 'email'} onClose={close} />
      <ChangePasswordDialog open={dialog === 'password'} onClose={close} />
      <ChangeUsernameDialog open={dialog === 'username'} onClose={close} />
      <DeleteAccountDialog open={dialog === 'delete'} onClose={close} />
    </div>
  );
}
