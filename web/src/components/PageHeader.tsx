import type { ReactNode } from 'react';
import { Brand } from './Brand';
import { LanguageSwitcher } from './LanguageSwitcher';

/** The top bar of the secondary screens (winners, profile, roles). */
export function PageHeader({ actions }: { actions?: ReactNode }) {
  return (
    <header className="topbar">
      <Brand />
      <div className="topbar__actions">
        {actions}
        <LanguageSwitcher />
      </div>
    </header>
  );
}
