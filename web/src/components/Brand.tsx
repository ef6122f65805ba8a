import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';

export function Brand({ to = '/game' }: { to?: string }) {
  const { t } = useTranslation();
  return (
    <Link to={to} className="brand">
      <span className="brand__mark" aria-hidden="true">
        +1
      </span>
      <span className="brand__name">{t('app.title')}</span>
    </Link>
  );
}
