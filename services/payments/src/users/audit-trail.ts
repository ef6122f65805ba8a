// The house pot collected is an admin action: auth keeps the audit log, so payments tells it, with the
// admin's own token (auth names the actor from it). After the payout, never before it, and never at the
// cost of the answer: a failure here is logged with the payout's ids for the operator to reconcile.
import { INTERNAL_AUDIT_PATH, type InternalAuditRecord } from '@omc/contracts';
import { forwardedHeaders, type Caller, type ServiceCredentials } from '@omc/service-kit';

export interface AuditTrailOptions {
  authUrl: string;
  timeoutMs: number;
  credentials: ServiceCredentials;
}

export async function recordInAuditLog(
  options: AuditTrailOptions,
  caller: Caller,
  record: InternalAuditRecord,
): Promise<void> {
  try {
    const response = await fetch(`${options.authUrl}${INTERNAL_AUDIT_PATH}`, {
      method: 'POST',
      headers: {
        ...forwardedHeaders(caller),
        ...options.credentials.headersFor('auth'),
        'content-type': 'application/json',
      },
      body: JSON.stringify(record),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    if (!response.ok) throw new Error(`auth answered ${response.status}`);
  } catch (error) {
    caller.log.error(
      { err: (error as Error).message, record },
      'the audit log did not record an admin action',
    );
  }
}
