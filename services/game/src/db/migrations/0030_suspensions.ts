import type { Kysely, Migration } from 'kysely';

// An admin's suspension, as auth told it: the click script refuses a suspended player, and the record
// outlives Redis (a rebuild loads it with the user). Ordered by the account's security version (auth's),
// which a suspension and a restore both raise; 0 until the first change arrives.
export const suspensionsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('users')
      .addColumn('suspended_reason', 'text')
      .addColumn('suspended_at', 'timestamptz')
      .addColumn('security_version', 'bigint', (col) => col.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema
      .alterTable('users')
      .dropColumn('suspended_reason')
      .dropColumn('suspended_at')
      .dropColumn('security_version')
      .execute();
  },
};
