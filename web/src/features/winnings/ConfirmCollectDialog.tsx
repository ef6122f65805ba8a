import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';

/** Shows the amount and the PayPal email before a payout: edit, cancel or confirm. */
export function ConfirmCollectDialog({
  open,
  title,
  amount,
  email,
  pending,
  onEdit,
  onCancel,
  onConfirm,
}: {
  open: boolean;
  title: string;
  amount: string;
  email: string;
  pending: boolean;
  onEdit: () => void;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Dialog open={open} onClose={onCancel} title={title}>
      <div className="confirm">
        <dl className="confirm__facts">
          <dt>{t('winnings.amount')}</dt>
          <dd className="num">{amount}</dd>
          <dt>{t('winnings.paypalEmail')}</dt>
          <dd translate="no">{email}</dd>
        </dl>
        <div className="form__actions">
          <button type="button" className="btn btn--ghost" onClick={onEdit}>
            {t('winnings.edit')}
          </button>
          <button type="button" className="btn btn--ghost" onClick={onCancel}>
            {t('common.cancel')}
          </button>
          <button type="button" className="btn btn--primary" onClick={onConfirm} disabled={pending}>
            {t('winnings.confirm')}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
