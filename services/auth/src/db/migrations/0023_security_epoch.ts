// The account's security epoch: raised by every security event, including those that keep the security
// version (a password change, one ended session), so a link another service mailed (the payout email's
// confirmation, minted by payments) can be spent by the same events as auth's own links. Frozen in time.
import type { Kysely, Migration } from 'kysely';

export const securityEpochMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('users')
      .addColumn('security_epoch', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('users').dropColumn('security_epoch').execute();
  },
};
