// A user's record in Redis: what the game needs to judge a click without asking Postgres. One JSON value
// per user (see keys.ts), read and written by the Lua scripts through USER_RECORD_LUA and by the engine
// through decodeUserRecord, so the field names are written down once for each side.
import { isPrivileged, PRIVILEGED_ROLES, type Role } from '@omc/contracts';

export interface UserRecord {
  /** Balances were loaded from Postgres (a record may exist partially: a role change seen first). */
  loaded: boolean;
  /** Postgres' version of role, name and deletion last applied. */
  version: number;
  role?: string;
  name?: string;
  deleted: boolean;
  /** Free clicks: sign-up grant plus milestone rewards, minus those spent. */
  granted: number;
  /** The round `purchased` belongs to (purchased clicks are good for that round only). */
  purchasedRound: number;
  purchased: number;
  /** The round of the user's unlimited pass (0 = none). */
  passRound: number;
  /** Per-user rate limit: tokens left and when they were counted (ms). */
  tokens?: number;
  tokensAt?: number;
  /** When the record was loaded from Postgres (ms): with tokensAt, how long the user has been idle. */
  loadedAt?: number;
  /** The journal entry (seq) that last changed the balances: evictable once the journal is flushed past it. */
  journalSeq?: number;
  /** False while the sign-up clicks wait for a verified email (records without it have them). */
  signupGranted: boolean;
  /** An admin suspended the account: the click script refuses its clicks (absent = not suspended). */
  suspended?: true;
  /** The operator's reason, told to the player with the refusal. */
  suspendedReason?: string;
  /** auth's security version of the account: clicks of tokens signed with an older one are refused. */
  securityVersion?: number;
}

/** Contracts' privileged roles as a Lua set, written into the scripts' text: no cost per click. */
const PRIVILEGED_ROLES_LUA = `{ ${PRIVILEGED_ROLES.map((role) => `[${JSON.stringify(role)}] = true`).join(', ')} }`;

/**
 * Lua helpers every script that touches a user includes: readUser decodes a record into these names
 * (records written before the fields had names, as g, pr, p, pass, tb, tt, ok, v, del, are read too and
 * rewritten with the names at their next change), writeUser encodes one. readUser also notes whether the
 * role is privileged (not stored), so privileged() costs a click one field read.
 */
export const USER_RECORD_LUA = `
local PRIVILEGED_ROLES = ${PRIVILEGED_ROLES_LUA}
local function readUser(raw)
  local r = raw and cjson.decode(raw) or {}
  return {
    loaded = r.loaded or r.ok, version = r.version or r.v or 0, role = r.role, name = r.name,
    deleted = r.deleted or r.del, granted = r.granted or r.g or 0,
    purchasedRound = r.purchasedRound or r.pr or 0, purchased = r.purchased or r.p or 0,
    passRound = r.passRound or r.pass or 0, tokens = r.tokens or r.tb, tokensAt = r.tokensAt or r.tt,
    loadedAt = r.loadedAt or 0, journalSeq = r.journalSeq, signupGranted = r.signupGranted,
    suspended = r.suspended, suspendedReason = r.suspendedReason, securityVersion = r.securityVersion or 0,
    privilegedRole = PRIVILEGED_ROLES[r.role] == true,
  }
end
local function writeUser(u)
  return cjson.encode({
    loaded = u.loaded, version = u.version, role = u.role, name = u.name, deleted = u.deleted,
    granted = u.granted, purchasedRound = u.purchasedRound, purchased = u.purchased,
    passRound = u.passRound, tokens = u.tokens, tokensAt = u.tokensAt, loadedAt = u.loadedAt,
    journalSeq = u.journalSeq, signupGranted = u.signupGranted, suspended = u.suspended,
    suspendedReason = u.suspendedReason,
    securityVersion = (u.securityVersion or 0) > 0 and u.securityVersion or nil,
  })
end
-- The account's access state, as LOAD_USER and UPDATE_USER_META take it (ARGV suspended 1/0, reason,
-- security version).
local function setAccess(u, flag, reason, securityVersion)
  if flag == '1' then u.suspended, u.suspendedReason = 1, reason else u.suspended, u.suspendedReason = nil, nil end
  u.securityVersion = tonumber(securityVersion) or 0
end
-- Clicks without spending: contracts' privileged roles, or the round's pass (hasUnlimitedClicks in TS).
local function privileged(u, round)
  return u.privilegedRole or u.passRound == round
end
`;

/** Decodes a record as stored (either field spelling); undefined when there is none. */
export function decodeUserRecord(raw: string | null | undefined): UserRecord | undefined {
  if (!raw) return undefined;
  const r = JSON.parse(raw) as Record<string, unknown>;
  const num = (...values: unknown[]) => Number(values.find((v) => v !== undefined && v !== null) ?? 0);
  const flag = (...values: unknown[]) => values.some((v) => v === 1 || v === true);
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const record: UserRecord = {
    loaded: flag(r.loaded, r.ok),
    version: num(r.version, r.v),
    deleted: flag(r.deleted, r.del),
    granted: num(r.granted, r.g),
    purchasedRound: num(r.purchasedRound, r.pr),
    purchased: num(r.purchased, r.p),
    passRound: num(r.passRound, r.pass),
    signupGranted: r.signupGranted !== 0 && r.signupGranted !== false,
  };
  const role = text(r.role);
  if (role !== undefined) record.role = role;
  const name = text(r.name);
  if (name !== undefined) record.name = name;
  if (r.tokens !== undefined || r.tb !== undefined) record.tokens = num(r.tokens, r.tb);
  if (r.tokensAt !== undefined || r.tt !== undefined) record.tokensAt = num(r.tokensAt, r.tt);
  if (r.loadedAt !== undefined) record.loadedAt = num(r.loadedAt);
  if (r.journalSeq !== undefined) record.journalSeq = num(r.journalSeq);
  if (r.securityVersion !== undefined) record.securityVersion = num(r.securityVersion);
  if (flag(r.suspended)) {
    record.suspended = true;
    record.suspendedReason = text(r.suspendedReason) ?? '';
  }
  return record;
}

/** Whether the user clicks without spending this round: the scripts' `privileged`, on the TS side. */
export function hasUnlimitedClicks(user: Pick<UserRecord, 'role' | 'passRound'>, round: number): boolean {
  return isPrivileged(user.role as Role | undefined) || user.passRound === round;
}
