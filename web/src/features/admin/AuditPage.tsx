import { useTranslation } from 'react-i18next';
import { PageHeader } from '../../components/PageHeader';
import { AuditTrail } from './AuditTrail';

export function AuditLogPage() {
  const { t } = useTranslation();
  return (
    <div className="page page--audit">
      <PageHeader />
      <main className="panel">
        <h1 className="panel__title">{t('audit.title')}</h1>
        <AuditTrail />
      </main>
    </div>
  );
}
