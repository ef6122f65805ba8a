import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LanguageSwitcher } from '../../components/LanguageSwitcher';
import { SessionMessage } from '../../components/SessionMessage';
import { useSession } from '../../session/SessionProvider';
import { LoginDialog } from '../auth/LoginDialog';
import { RegisterDialog } from '../auth/RegisterDialog';

const STEPS = ['welcome.step1', 'welcome.step2', 'welcome.step3'] as const;

export function WelcomePage() {
  const { t } = useTranslation();
  const { continueAsGuest } = useSession();
  const [dialog, setDialog] = useState<'none' | 'login' | 'register'>('none');
  return (
    <div className="page page--welcome">
      <header className="welcome__bar">
        <LanguageSwitcher />
      </header>
      <SessionMessage />
      <main className="welcome">
        <div className="welcome__badge" aria-hidden="true">
          +1
        </div>
        <h1 className="welcome__title">{t('app.title')}</h1>
        <p className="welcome__prompt">{t('welcome.prompt')}</p>
        <ol className="welcome__steps">
          {STEPS.map((step, index) => (
            <li key={step} className="welcome__step">
              <span className="welcome__step-number num" aria-hidden="true">
                {index + 1}
              </span>
              <span>{t(step)}</span>
            </li>
          ))}
        </ol>
        <p className="welcome__subtext">{t('welcome.subtext')}</p>
        <div className="welcome__actions">
          <button type="button" className="btn btn--primary btn--large" onClick={() => setDialog('register')}>
            {t('welcome.register')}
          </button>
          <button type="button" className="btn btn--secondary btn--large" onClick={() => setDialog('login')}>
            {t('welcome.login')}
          </button>
          <button type="button" className="btn btn--ghost btn--large" onClick={continueAsGuest}>
            {t('welcome.guest')}
          </button>
        </div>
      </main>
      <LoginDialog open={dialog === 'login'} onClose={() => setDialog('none')} />
      <RegisterDialog open={dialog === 'register'} onClose={() => setDialog('none')} />
    </div>
  );
}
