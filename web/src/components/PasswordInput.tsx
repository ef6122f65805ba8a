import { useState, type InputHTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';

/** A password field with its show/hide toggle (the client contract, registration modal). */
export function PasswordInput({
  label,
  id,
  ...input
}: { label: string; id: string } & InputHTMLAttributes<HTMLInputElement>) {
  const { t } = useTranslation();
  const [visible, setVisible] = useState(false);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="field__password">
        <input id={id} type={visible ? 'text' : 'password'} autoComplete="current-password" {...input} />
        <button
          type="button"
          className="field__toggle"
          aria-pressed={visible}
          aria-controls={id}
          aria-label={visible ? t('common.hidePassword') : t('common.showPassword')}
          onClick={() => setVisible((v) => !v)}
        >
          {visible ? t('common.hide') : t('common.show')}
        </button>
      </div>
    </div>
  );
}
