import { Language, LANGUAGES } from '@omc/contracts';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { authApi } from '../api/auth';
import { applyLanguage, LANGUAGE_NAMES } from '../i18n';
import { useSession } from '../session/SessionProvider';
import { GlobeIcon } from './Icons';

/** Changes the interface language; a signed-in user's choice is also saved on the server (failures only logged). */
export function LanguageSwitcher() {
  const { t, i18n } = useTranslation();
  const { token } = useSession();
  const id = useId();
  const change = (value: string) => {
    const language = Language.safeParse(value);
    if (!language.success) return;
    void applyLanguage(language.data);
    if (token)
      authApi
        .changeLanguage(token, language.data)
        .catch((error: unknown) => console.warn('language not saved', error));
  };
  return (
    <div className="language">
      <label htmlFor={id} className="sr-only">
        {t('common.language')}
      </label>
      <span className="language__icon">
        <GlobeIcon />
      </span>
      <select
        id={id}
        className="language__select"
        value={i18n.language}
        onChange={(e) => change(e.target.value)}
        translate="no"
      >
        {LANGUAGES.map((language) => (
          <option key={language} value={language} lang={language}>
            {LANGUAGE_NAMES[language]}
          </option>
        ))}
      </select>
    </div>
  );
}
