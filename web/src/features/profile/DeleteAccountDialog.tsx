import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { authApi } from '../../api/auth';
import { ApiClientError } from '../../api/http';
import { Dialog } from '../../components/Dialog';
import { useNotices } from '../../components/Notices';
import { useSession } from '../../session/SessionProvider';

/** Deleting the account asks first; errors are alerts (docs/client-contract.md). */
export function DeleteAccountDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const { token, logout } = useSession();
  const { notify } = useNotices();
  const remove = useMutation({
    mutationFn: () => authApi.deleteAccount(token!),
    onSuccess: () => {
      notify({ tone: 'info', key: 'deleteAccount.success' });
      onClose();
      logout();
    },
    onError: (error) => {
      if (error instanceof ApiClientError && error.serverMessage)
        notify({ tone: 'error', text: error.serverMessage });
      else
        notify({
          tone: 'error',
          key:
            error instanceof ApiClientError && error.status >= 500
              ? 'deleteAccount.serverError'
              : 'deleteAccount.errorGeneric',
        });
    },
  });
  return (
    <Dialog open={open} onClose={onClose} title={t('deleteAccount.title')}>
      <p>{t('deleteAccount.confirmText')}</p>
      <div className="form__actions">
        <button type="button" className="btn btn--ghost" onClick={onClose}>
          {t('common.cancel')}
        </button>
        <button
          type="button"
          className="btn btn--danger"
          disabled={remove.isPending}
          onClick={() => remove.mutate()}
        >
          {t('deleteAccount.confirm')}
        </button>
      </div>
    </Dialog>
  );
}
