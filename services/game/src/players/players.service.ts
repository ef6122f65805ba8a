// The game's players: what auth tells the game of an account (its sign-up, role, name, deletion, access
// state and verified email) is written to Postgres first, then pushed to the user's record in Redis
// (users-in-play.ts, idempotent by version; its scripts: players.scripts.ts). The internal routes beside
// it (role, suspension, balances) and the consumers of auth's events (events/consumers.ts) call in here.
import type { EventEnvelope, InternalSuspensionChange, Role, SUBJECTS } from '@omc/contracts';
import { backoff, conflict, processOnce, RETRY_POLICIES } from '@omc/service-kit';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { applyAccess, findUsers, insertUser, updateUser } from './players.repo.js';
import type { Database } from '../db/schema.js';
import type { UserView } from '../engine/types.js';
import type { UsersInPlay } from './users-in-play.js';

/**
 * A user promoted or suspended right after signing up may reach the game before the sign-up event has:
 * the call waits this long for it (well within auth's own timeout for the call), then answers 409.
 */
const UNKNOWN_USER_WAIT_MS = 500;

/** Runs `apply` again until it finds the user or UNKNOWN_USER_WAIT_MS passed; false when it never did. */
async function whenKnown(apply: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + UNKNOWN_USER_WAIT_MS;
  let known = await apply();
  for (let attempt = 0; !known && Date.now() < deadline; attempt += 1) {
    await backoff(RETRY_POLICIES.unknownUser, attempt);
    known = await apply();
  }
  return known;
}

async function applyRole(
  db: Kysely<Database>,
  userId: string,
  role: Role,
  roleVersion: number,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (!(await findUsers(trx, [userId])).has(userId)) return false;
    // Applied only when auth's version is higher than the one the game holds (idempotent; the event is
    // then a no-op). The caller sends no clock: the time recorded is the game's own.
    await updateUser(trx, userId, { role, roleVersion }, new Date());
    return true;
  });
}

type Registered = EventEnvelope<typeof SUBJECTS.userRegistered>['data'];
type AccessChanged = EventEnvelope<typeof SUBJECTS.userAccessChanged>['data'];

export class PlayersService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly users: UsersInPlay,
    private readonly config: Pick<Config, 'SIGNUP_FREE_CLICKS' | 'SIGNUP_FREE_CLICKS_AFTER_VERIFICATION'>,
  ) {}

  /** Auth's role change before updateRole answers; the role the game holds after it. */
  async changeRole(userId: string, role: Role, roleVersion: number): Promise<Role> {
    const known = await whenKnown(() => applyRole(this.db, userId, role, roleVersion));
    if (!known) throw conflict('The game does not know this user yet; the role arrives with its events');
    await this.users.sync(userId);
    const user = (await findUsers(this.db, [userId])).get(userId);
    return user?.role ?? role;
  }

  /** Auth's suspension or restore before the admin's call answers; whether the user is suspended after it. */
  async changeAccess(userId: string, change: InternalSuspensionChange): Promise<boolean> {
    const apply = () => this.db.transaction().execute((trx) => applyAccess(trx, userId, change, new Date()));
    if (!(await whenKnown(apply)))
      throw conflict('The game does not know this user yet; the suspension arrives with its event');
    await this.users.sync(userId);
    const user = (await findUsers(this.db, [userId])).get(userId);
    return user?.suspension != null;
  }

  /** Several users' balances at once, without loading them into Redis; unknown users are absent. */
  async balances(userIds: string[]): Promise<Record<string, UserView>> {
    const views = await this.users.views([...new Set(userIds)]);
    return Object.fromEntries(views);
  }

  /** A new account, once per event, with its sign-up clicks (or without them, still to come). */
  async register(event: EventEnvelope, data: Registered): Promise<void> {
    const { config } = this;
    await processOnce(this.db, event, async (trx) => {
      // With SIGNUP_FREE_CLICKS_AFTER_VERIFICATION the clicks wait for the verified email.
      const now = !config.SIGNUP_FREE_CLICKS_AFTER_VERIFICATION;
      await insertUser(trx, {
        id: data.userId,
        username: data.username,
        role: data.role,
        grantedClicks: now ? config.SIGNUP_FREE_CLICKS : 0,
        signupGranted: now,
      });
    });
    await this.users.ensure([data.userId], true);
  }

  /** A role, name or deletion as of the event (updateUser orders them); throws while the user is unknown. */
  async change(
    event: EventEnvelope,
    userId: string,
    change: Parameters<typeof updateUser>[2],
  ): Promise<void> {
    await processOnce(this.db, event, (trx) => updateUser(trx, userId, change, new Date(event.occurredAt)));
    await this.users.sync(userId);
  }

  /** The account's access state as of auth's security version; throws while the user is unknown. */
  async accessChanged(event: EventEnvelope, data: AccessChanged): Promise<void> {
    await processOnce(this.db, event, async (trx) => {
      if (!(await applyAccess(trx, data.userId, data, new Date())))
        throw new Error(`user ${data.userId} is not known yet`);
    });
    await this.users.sync(data.userId);
  }

  /**
   * Sign-up clicks still to come are granted, once: Redis' record and then Postgres keep the mark, so
   * a redelivery or a second verification (after an email change) grants nothing.
   */
  async emailVerified(userId: string): Promise<void> {
    const clicks = this.config.SIGNUP_FREE_CLICKS;
    const user = (await findUsers(this.db, [userId])).get(userId);
    if (!user) throw new Error(`user ${userId} is not known yet`);
    if (user.signupGranted || user.deleted) return;
    // Recorded in Postgres too (under the rebuild fence) before the event is acknowledged.
    await this.users.grantSignupClicks(userId, clicks);
  }
}
