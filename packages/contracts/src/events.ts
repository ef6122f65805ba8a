// Every NATS subject with its versioned payload. Durable events travel on JetStream with the envelope's
// id as Nats-Msg-Id (deduplicated) and are consumed idempotently by that id.
import { z } from 'zod';
import { Cents, Language, Role, RoleVersion, UserId } from './common.js';
import { PackId } from './packs.js';

export const SUBJECTS = {
  userRegistered: 'auth.user.registered.v1',
  userRenamed: 'auth.user.renamed.v1',
  userEmailChanged: 'auth.user.email_changed.v1',
  userRoleChanged: 'auth.user.role_changed.v1',
  userDeleted: 'auth.user.deleted.v1',
  /**
   * The account's access state at a new security version: after every security event that raises it
   * (a suspension, a restore, a password reset, an email undo, sign out everywhere).
   */
  userAccessChanged: 'auth.user.access_changed.v1',
  /**
   * The owner ended one session (its refresh family): its access tokens, which name it in `sid`, are
   * refused from now on. Every game instance watches these, so the session clicks no more.
   */
  sessionEnded: 'auth.session.ended.v1',
  /** A password reset was asked for an existing account: names the request; the mailer mints its link. */
  passwordResetRequested: 'auth.user.password_reset_requested.v1',
  /** The password was reset from a mailed link: the owner is told. */
  passwordReset: 'auth.user.password_reset.v1',
  /** An address to confirm (at registration, after an email change, on resend): the mailer signs its link. */
  verificationRequested: 'auth.user.verification_requested.v1',
  /** The account's email was confirmed from the mailed link. */
  emailVerified: 'auth.user.email_verified.v1',
  /** An email change waits for the new address: names the change; the mailer mints its confirm and undo links. */
  emailChangeRequested: 'auth.user.email_change_requested.v1',
  /** An email change was undone from the old address: the address it moved to is told. */
  emailChangeUndone: 'auth.user.email_change_undone.v1',
  purchaseCompleted: 'payments.purchase.completed.v1',
  payoutCompleted: 'payments.payout.completed.v1',
  roundWon: 'game.round.won.v1',
  /** Core NATS (not persisted): the latest counter for the realtime tick; a lost one is superseded. */
  gameState: 'game.state.v1',
  /** Core NATS request-reply: the game answers with the current GameStateV1 envelope (realtime at start-up). */
  gameStateRequest: 'game.state.current.v1',
} as const;
export type Subject = Exclude<(typeof SUBJECTS)[keyof typeof SUBJECTS], typeof SUBJECTS.gameStateRequest>;

/** JetStream streams: name and the subjects each holds. */
export const STREAMS = {
  auth: { name: 'AUTH_EVENTS', subjects: ['auth.>'] },
  payments: { name: 'PAYMENTS_EVENTS', subjects: ['payments.>'] },
  game: { name: 'GAME_EVENTS', subjects: ['game.round.>'] },
  /** Events a durable consumer gave up on (dead.<stream>.<consumer>), kept for an operator to read. */
  deadLetters: { name: 'DEAD_LETTERS', subjects: ['dead.>'] },
} as const;

export const UserRegisteredV1 = z.object({
  userId: UserId,
  username: z.string(),
  email: z.string(),
  role: Role,
  preferredLanguage: Language,
});
export const UserRenamedV1 = z.object({ userId: UserId, username: z.string() });
export const UserEmailChangedV1 = z.object({ userId: UserId, email: z.string() });
/**
 * `roleVersion` is auth's own order of role changes (a Postgres sequence): a consumer applies a change
 * only when its version is higher than the one it holds. Optional for events published before it existed.
 */
export const UserRoleChangedV1 = z.object({
  userId: UserId,
  role: Role,
  previousRole: Role,
  roleVersion: RoleVersion.optional(),
  /** The admin who made the change (absent from older auth). */
  changedBy: UserId.optional(),
});
export const UserDeletedV1 = z.object({ userId: UserId });
/**
 * The account's whole access state as of `securityVersion` (the account's security version after the
 * change): whether an admin suspended it, and why (`reason`, the operator's, shown to the player). A
 * consumer applies an event only when its version is higher than the one it holds, so a late or
 * repeated event never undoes a newer one; every event carries the whole state, so none depends on an
 * older one having arrived. Access tokens signed with an older `sv` than `securityVersion` no longer count.
 */
export const UserAccessChangedV1 = z.object({
  userId: UserId,
  suspended: z.boolean(),
  reason: z.string().max(500).nullable(),
  securityVersion: z.number().int().nonnegative(),
});
/**
 * One session ended by its owner: `sessionId` is the `sid` its access tokens carry; none of them is valid
 * after `until` anyway (the last one it was given expires then), so a consumer may forget it after that.
 */
export const SessionEndedV1 = z.object({
  userId: UserId,
  sessionId: z.string().min(1).max(100),
  until: z.iso.datetime({ offset: true }),
});
/**
 * No secret travels on the bus: `requestId` names the reset request in auth's own store, and auth's mailer
 * mints the link's token when it sends the mail (storing only its hash). Absent only from events older
 * auth published, which carried a `token` instead: the schema drops it unread, and the mailer sends
 * nothing for them (docs/decisions.md).
 */
export const PasswordResetRequestedV1 = z.object({
  userId: UserId,
  email: z.string(),
  language: Language,
  requestId: z.uuid().optional(),
  expiresAt: z.iso.datetime({ offset: true }),
});
export const PasswordResetV1 = z.object({ userId: UserId, email: z.string(), language: Language });
/**
 * The address to confirm: auth's mailer signs the link (bound to the account and this address, expiring
 * VERIFICATION_TTL_HOURS after it is sent) when it sends the mail. Older auth also sent `token` and
 * `expiresAt`: the schema drops them unread.
 */
export const VerificationRequestedV1 = z.object({
  userId: UserId,
  email: z.string(),
  language: Language,
});
export const EmailVerifiedV1 = z.object({ userId: UserId, email: z.string() });
/**
 * Mails the new address a confirm link (until `expiresAt`) and the old one a notice with an undo link
 * (until `undoExpiresAt`). `requestId` names the change in auth's own store: the mailer mints both links
 * when it sends (storing only their hashes), so no token travels on the bus. Absent only from events
 * older auth published with `confirmToken` and `undoToken`: the schema drops those unread, and the mailer
 * sends nothing for them.
 */
export const EmailChangeRequestedV1 = z.object({
  userId: UserId,
  oldEmail: z.string(),
  newEmail: z.string(),
  language: Language,
  requestId: z.uuid().optional(),
  expiresAt: z.iso.datetime({ offset: true }),
  undoExpiresAt: z.iso.datetime({ offset: true }),
});

export const EmailChangeUndoneV1 = z.object({
  userId: UserId,
  /** The address the change had moved to (it is told). */
  undoneEmail: z.string(),
  /** The address the account uses again. */
  restoredEmail: z.string(),
  language: Language,
});

export const PurchaseCompletedV1 = z.object({
  purchaseId: z.uuid(),
  userId: UserId,
  packId: PackId,
  /** Clicks credited for the current round; null for the unlimited pass. */
  clicks: z.number().int().positive().nullable(),
  unlimited: z.boolean(),
  amountCents: Cents,
  potShareCents: Cents,
  houseShareCents: Cents,
  transactionId: z.string(),
});

export const PayoutCompletedV1 = z.object({
  payoutId: z.uuid(),
  userId: UserId,
  kind: z.enum(['winnings', 'house']),
  amountCents: Cents,
  transactionId: z.string(),
});

export const RoundWonV1 = z.object({
  round: z.number().int().positive(),
  winnerUserId: UserId,
  winnerUsername: z.string(),
  potCents: Cents,
  clicks: z.number().int().positive(),
  wonAt: z.iso.datetime({ offset: true }),
});

export const GameStateV1 = z.object({
  round: z.number().int().positive(),
  globalClicks: z.number().int().nonnegative(),
  potCents: Cents,
  lastClickUser: z.string().nullable(),
  lastWinner: z.string().nullable(),
  /** Milliseconds since the epoch when the game produced this state. */
  at: z.number().int(),
});

export const EVENT_PAYLOADS = {
  [SUBJECTS.userRegistered]: UserRegisteredV1,
  [SUBJECTS.userRenamed]: UserRenamedV1,
  [SUBJECTS.userEmailChanged]: UserEmailChangedV1,
  [SUBJECTS.userRoleChanged]: UserRoleChangedV1,
  [SUBJECTS.userDeleted]: UserDeletedV1,
  [SUBJECTS.userAccessChanged]: UserAccessChangedV1,
  [SUBJECTS.sessionEnded]: SessionEndedV1,
  [SUBJECTS.passwordResetRequested]: PasswordResetRequestedV1,
  [SUBJECTS.passwordReset]: PasswordResetV1,
  [SUBJECTS.verificationRequested]: VerificationRequestedV1,
  [SUBJECTS.emailVerified]: EmailVerifiedV1,
  [SUBJECTS.emailChangeRequested]: EmailChangeRequestedV1,
  [SUBJECTS.emailChangeUndone]: EmailChangeUndoneV1,
  [SUBJECTS.purchaseCompleted]: PurchaseCompletedV1,
  [SUBJECTS.payoutCompleted]: PayoutCompletedV1,
  [SUBJECTS.roundWon]: RoundWonV1,
  [SUBJECTS.gameState]: GameStateV1,
} as const;

export type EventPayload<S extends Subject> = z.infer<(typeof EVENT_PAYLOADS)[S]>;

export interface EventEnvelope<S extends Subject = Subject> {
  /** Unique id: the Nats-Msg-Id and the consumers' idempotency key. */
  id: string;
  subject: S;
  occurredAt: string;
  data: EventPayload<S>;
}

function buildEnvelopeSchema<S extends Subject>(subject: S) {
  return z.object({
    id: z.string().min(1).max(200),
    subject: z.literal(subject),
    occurredAt: z.iso.datetime({ offset: true }),
    data: EVENT_PAYLOADS[subject] as unknown as z.ZodType<EventPayload<S>>,
  });
}

/** Built once per subject: a consumer parses many messages with the same schema. */
const envelopeSchemas = new Map<Subject, ReturnType<typeof buildEnvelopeSchema>>();

export function eventEnvelopeSchema<S extends Subject>(
  subject: S,
): ReturnType<typeof buildEnvelopeSchema<S>> {
  let schema = envelopeSchemas.get(subject);
  if (!schema) {
    schema = buildEnvelopeSchema(subject);
    envelopeSchemas.set(subject, schema);
  }
  return schema as unknown as ReturnType<typeof buildEnvelopeSchema<S>>;
}

const decoder = new TextDecoder();

/** Validates raw bytes received on a subject against that subject's schema. Throws on mismatch. */
export function parseEvent<S extends Subject>(subject: S, raw: Uint8Array | string): EventEnvelope<S> {
  const text = typeof raw === 'string' ? raw : decoder.decode(raw);
  return eventEnvelopeSchema(subject).parse(JSON.parse(text)) as EventEnvelope<S>;
}

export function makeEvent<S extends Subject>(
  subject: S,
  data: EventPayload<S>,
  id: string = crypto.randomUUID(),
): EventEnvelope<S> {
  return {
    id,
    subject,
    occurredAt: new Date().toISOString(),
    data: EVENT_PAYLOADS[subject].parse(data) as EventPayload<S>,
  };
}
