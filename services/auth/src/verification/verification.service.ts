// Email verification: a signed link mailed at registration, after an email change and on request; the
// link confirms the account's current address once. Resending is limited per account and per IP.
import { makeEvent, SUBJECTS, type EventEnvelope } from '@omc/contracts';
import { addressBudgetKey, badRequest, conflict, forbidden } from '@omc/service-kit';
import type { AuthBase } from '../base.js';
import type { Deps } from '../deps.js';
import { enqueue } from '../events.js';
import { mailQuota } from '../mail/quota.js';
import { countRequest } from '../security/request-limit.js';
import { findUserById, lockUserById, updateUser, type UserRow } from '../users/users.repo.js';
import { readVerification, signVerification, verificationKey } from './verification-token.js';

const keys = new WeakMap<Deps['config'], Buffer>();
function keyOf(deps: Pick<Deps, 'config'>): Buffer {
  let key = keys.get(deps.config);
  if (!key) {
    key = verificationKey(deps.config.JWT_PRIVATE_KEY);
    keys.set(deps.config, key);
  }
  return key;
}

/**
 * The event that mails a verification link for the account's address (enqueued by the caller). It names
 * the account and the address; the mailer signs the link when it sends (mintVerificationToken).
 */
export function verificationRequest(
  user: Pick<UserRow, 'id' | 'email' | 'preferred_language'>,
): EventEnvelope<typeof SUBJECTS.verificationRequested> {
  return makeEvent(SUBJECTS.verificationRequested, {
    userId: user.id,
    email: user.email,
    language: user.preferred_language,
  });
}

/**
 * A link for the address, signed now and valid VERIFICATION_TTL_HOURS; null when the account no longer
 * has this address or has already verified it (the link could not be used).
 */
export async function mintVerificationToken(
  deps: Pick<Deps, 'db' | 'config'>,
  userId: string,
  email: string,
  now: number,
): Promise<string | null> {
  const user = await findUserById(deps.db, userId);
  if (!user || user.email.toLowerCase() !== email.toLowerCase() || user.email_verified_at) return null;
  const expiresAt = now + deps.config.VERIFICATION_TTL_HOURS * 3600_000;
  return signVerification(keyOf(deps), { userId, email: user.email, expiresAt });
}

const INVALID = 'This verification link is not valid. Ask for a new one from your profile.';

export class VerificationService {
  constructor(private readonly base: AuthBase) {}

  /**
   * Confirms the address the token names. A caller signed in as another account is refused (403); an
   * expired link, one for an address the account no longer has, or one already used is a 400.
   */
  async verifyEmail(token: string, callerId?: string): Promise<void> {
    const claims = readVerification(keyOf(this.base.deps), token);
    if (!claims) throw badRequest(INVALID, 'token');
    if (callerId && callerId !== claims.userId)
      throw forbidden('This verification link belongs to another account');
    const now = this.base.deps.clock();
    if (claims.expiresAt <= now)
      throw badRequest('This verification link has expired. Ask for a new one from your profile.', 'token');
    await this.base.deps.db.transaction().execute(async (trx) => {
      const user = await lockUserById(trx, claims.userId);
      if (!user || user.email.toLowerCase() !== claims.email)
        throw badRequest('This verification link is for an address the account no longer uses.', 'token');
      if (user.email_verified_at)
        throw badRequest('This verification link was already used: the address is verified.', 'token');
      await updateUser(trx, user.id, { email_verified_at: new Date(now) });
      await enqueue(trx, makeEvent(SUBJECTS.emailVerified, { userId: user.id, email: user.email }));
    });
    this.base.relay.notify();
  }

  /** Mails a new link; 409 when already verified, 429 past the limits (counted before any work). */
  async resendVerification(userId: string, ip: string): Promise<void> {
    const { config } = this.base.deps;
    const user = await findUserById(this.base.deps.db, userId);
    if (!user) throw badRequest('No such account');
    if (user.email_verified_at) throw conflict('Your email is already verified');
    await countRequest(this.base.deps.redis, config.RESET_WINDOW_MS, [
      {
        key: `resend:ip:${addressBudgetKey(ip)}`,
        max: config.RESET_MAX_PER_IP,
        message: (s) => `Too many verification mails asked from your network. Try again in ${s} seconds.`,
      },
      {
        key: `resend:user:${user.id}`,
        max: config.RESEND_MAX_PER_ACCOUNT,
        message: (s) => `Too many verification mails asked for this account. Try again in ${s} seconds.`,
      },
      ...mailQuota(config, { accountId: user.id, to: [user.email] }),
    ]);
    await this.base.deps.db.transaction().execute((trx) => enqueue(trx, verificationRequest(user)));
    this.base.relay.notify();
  }
}
