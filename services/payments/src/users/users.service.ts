// Who is who, as auth announces it: the current role (not the token's, which may be minutes old)
// decides who may collect the house pot and who sees the admin balance.
import { SUBJECTS, type EventEnvelope, type Role } from '@omc/contracts';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

export class UsersService {
  constructor(private readonly db: Kysely<Database>) {}

  /** The role on record; for a user auth has not announced yet, the token's role. */
  async currentRole(userId: string, tokenRole: string): Promise<string | null> {
    const row = await this.db.selectFrom('users').select(['role', 'deleted_at']).where('id', '=', userId).executeTakeFirst();
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
        await trx
          .insertInto('users')
          .values({ id: d.userId, username: d.username, email: d.email, role: d.role })
          .onConflict((oc) => oc.column('id').doUpdateSet({ username: d.username, email: d.email, updated_at: sql`now()` }))
          .execute();
        return;
      }
      case SUBJECTS.userRoleChanged: {
        const d = event.data as EventEnvelope<typeof SUBJECTS.userRoleChanged>['data'];
        const at = new Date(event.occurredAt);
        // Only a newer change wins: a late redelivery of an older one must not undo it.
        await trx
          .insertInto('users')
          .values({ id: d.userId, role: d.role as Role, role_changed_at: at })
          .onConflict((oc) =>
            oc
              .column('id')
              .doUpdateSet({ role: d.role, role_changed_at: at, updated_at: sql`now()` })
              .where((eb) => eb.or([eb('users.role_changed_at', 'is', null), eb('users.role_changed_at', '<', at)])),
          )
          .execute();
        return;
      }
      case SUBJECTS.userRenamed: {
        const d = event.data as EventEnvelope<typeof SUBJECTS.userRenamed>['data'];
        await trx.updateTable('users').set({ username: d.username, updated_at: sql`now()` }).where('id', '=', d.userId).execute();
        return;
      }
      case SUBJECTS.userEmailChanged: {
        const d = event.data as EventEnvelope<typeof SUBJECTS.userEmailChanged>['data'];
        await trx.updateTable('users').set({ email: d.email, updated_at: sql`now()` }).where('id', '=', d.userId).execute();
        return;
      }
      case SUBJECTS.userDeleted: {
        const d = event.data as EventEnvelope<typeof SUBJECTS.userDeleted>['data'];
        // The ledger keeps the user's history; the user can no longer act.
        await trx
          .insertInto('users')
          .values({ id: d.userId, role: 'standard', deleted_at: sql`now()` })
          .onConflict((oc) => oc.column('id').doUpdateSet({ deleted_at: sql`now()`, updated_at: sql`now()` }))
          .execute();
        await trx.deleteFrom('payees').where('user_id', '=', d.userId).execute();
        return;
      }
      default:
        return;
    }
  }
}
