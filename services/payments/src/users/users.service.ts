// Who is who, as auth announces it: the current role (not the token's, which may be minutes old)
// decides who may collect the house pot and who sees the admin balance.
import { SUBJECTS, type EventEnvelope, type Role } from '@omc/contracts';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import {
  findUserRole,
  markDeleted,
  setEmail,
  setRoleIfNewer,
  setUsername,
  upsertRegisteredUser,
} from './users.repo.js';

export class UsersService {
  constructor(private readonly db: Kysely<Database>) {}

  /** The role on record; for a user auth has not announced yet, the token's role. */
  async currentRole(userId: string, tokenRole: string): Promise<string | null> {
    const row = await findUserRole(this.db, userId);
    if (!row) return tokenRole;
    return row.deleted_at ? null : row.role;
  }

  async isAdmin(userId: string, tokenRole: string): Promise<boolean> {
    return (await this.currentRole(userId, tokenRole)) === 'admin';
  }

  /** Applies one auth event (inside processOnce's transaction). */
  static async apply(trx: Transaction<Database>, event: EventEnvelope): Promise<void> {
    switch (event.subject) {
      case SUBJECTS.userRegistered: {
        const d = event.data as EventEnvelope<typeof SUBJECTS.userRegistered>['data'];
        await upsertRegisteredUser(trx, { id: d.userId, username: d.username, email: d.email, role: d.role });
        return;
      }
      case SUBJECTS.userRoleChanged: {
        const d = event.data as EventEnvelope<typeof SUBJECTS.userRoleChanged>['data'];
        await setRoleIfNewer(trx, d.userId, d.role as Role, new Date(event.occurredAt));
        return;
      }
      case SUBJECTS.userRenamed: {
        const d = event.data as EventEnvelope<typeof SUBJECTS.userRenamed>['data'];
        await setUsername(trx, d.userId, d.username);
        return;
      }
      case SUBJECTS.userEmailChanged: {
        const d = event.data as EventEnvelope<typeof SUBJECTS.userEmailChanged>['data'];
        await setEmail(trx, d.userId, d.email);
        return;
      }
      case SUBJECTS.userDeleted: {
        const d = event.data as EventEnvelope<typeof SUBJECTS.userDeleted>['data'];
        await markDeleted(trx, d.userId);
        return;
      }
      default:
        return;
    }
  }
}
