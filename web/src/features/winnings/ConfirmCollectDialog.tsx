import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { VERIFY_FIRST_TEXT_ID, VerifyFirst } from './VerifyFirst';

/**
 * Shows the amount and the PayPal email before a payout: edit, cancel or confirm. With `verifyEmail`
 * (the account's address is not verified) it says to verify it first, offers the link again, and the
 * confirm button waits.
 */
export function ConfirmCollectDialog({
  open,
  title,
  amount,
  email,
  pending,
  verifyEmail = null,
  onEdit,
  onCancel,
  onConfirm,
  children,
}: {
  open: boolean;
  title: string;
  amount: string;
  email: string;
  pending: boolean;
  verifyEmail?: string | null;
  onEdit: () => void;
  onCancel: () => void;
  onConfirm: () => void;
  /** More to fill in before confirming (the admin's password for the house pot). */
  children?: ReactNode;
}) {
  const { t } = useTranslation();
  const unverified = verifyEmail !== null;
  return (
    <Dialog open={open} onClose={onCancel} title={title}>
      <div className="confirm">
        {unverified ? <VerifyFirst email={verifyEmail} /> : null}
        <dl className="confirm__facts">
          <dt>{t('winnings.amount')}</dt>
          <dd className="num">{amount}</dd>
          <dt>{t('winnings.paypalEmail')}</dt>
          <dd translate="no">{email}</dd>
        </dl>
        {children}
        <div className="form__actions">
          <button type="button" className="btn btn--ghost" onClick={onEdit}>
            {t('winnings.edit')}
          </button>
          <button type="button" className="btn btn--ghost" onClick={onCancel}>
            {t('common.cancel')}
          </button>
          <button
            type="button"
            className="btn btn--primary"
            onClick={onConfirm}
            disabled={pending || unverified}
            aria-describedby={unverified ? VERIFY_FIRST_TEXT_ID : undefined}
          >
            {t('winnings.confirm')}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
