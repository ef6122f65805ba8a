// The house pot collected is an admin action: auth keeps the audit log, so payments tells it, with the
// admin's own token (auth names the actor from it). After the payout, never before it, and never at the
// cost of the answer: a failure here is logged with the payout's ids for the operator to reconcile.
import { INTERNAL, type InternalAuditRecord } from '@omc/contracts';
import { outcomeReason, type Caller, type InternalClient } from '@omc/service-kit';

export async function recordInAuditLog(
  internal: InternalClient,
  caller: Caller,
  record: InternalAuditRecord,
): Promise<void> {
  const recorded = await internal.call(INTERNAL.audit, { body: record, caller });
  if (recorded.kind !== 'answered')
    caller.log.error(
      { err: outcomeReason(recorded), record },
      'the audit log did not record an admin action',
    );
}
