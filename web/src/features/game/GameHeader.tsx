import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { Brand } from '../../components/Brand';
import { LanguageSwitcher } from '../../components/LanguageSwitcher';
import { formatMoney } from '../../i18n/format';
import { useSession } from '../../session/SessionProvider';
import { LoginDialog } from '../auth/LoginDialog';
import { RegisterDialog } from '../auth/RegisterDialog';

export function GameHeader({ pot }: { pot: number | undefined }) {
  const { t, i18n } = useTranslation();
  const { token, isGuest, username, logout, continueAsGuest } = useSession();
  const [dialog, setDialog] = useState<'none' | 'login' | 'register'>('none');
  return (
    <header className="topbar">
      <Brand />
      {token && pot !== undefined ? (
        <div className="pot" aria-live="off">
          <span className="pot__label">{t('game.pot')}</span>
          <span className="pot__value num" data-testid="pot">
            {formatMoney(pot, i18n.language)}
          </span>
        </div>
      ) : null}
      <nav className="topbar__actions" aria-label={t('game.navigation')}>
        <Link to="/winners" className="btn btn--ghost">
          {t('game.winnersLink')}
        </Link>
        {token ? (
          <>
            <Link to="/profile" className="btn btn--ghost greeting">
              {t('game.greeting', { username: username ?? '' })}
            </Link>
            <button type="button" className="btn btn--ghost" onClick={logout}>
              {t('game.logout')}
            </button>
          </>
        ) : (
          <>
            <button type="button" className="btn btn--ghost" onClick={() => setDialog('register')}>
              {t('welcome.register')}
            </button>
            <button type="button" className="btn btn--primary" onClick={() => setDialog('login')}>
              {t('welcome.login')}
            </button>
            {!isGuest ? (
              <button type="button" className="btn btn--ghost" onClick={continueAsGuest}>
                {t('welcome.guest')}
              </button>
            ) : null}
          </>
        )}
        <LanguageSwitcher />
      </nav>
      <LoginDialog open={dialog === 'login'} onClose={() => setDialog('none')} />
      <RegisterDialog open={dialog === 'register'} onClose={() => setDialog('none')} />
    </header>
  );
}
