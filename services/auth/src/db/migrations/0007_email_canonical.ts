// Emails compared in one canonical form (NFKC, case folded, NFKC), stored beside the address as typed and
// unique, so a look-alike spelling (U+212A KELVIN SIGN for "k") is the same address. Filled here for the
// rows that exist. Frozen in time: the canonical function is copied, not imported.
import { sql, type Kysely, type Migration } from 'kysely';

const canonical = (email: string) =>
  email.trim().normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');

export const emailCanonicalMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('users').addColumn('email_canonical', 'text').execute();
    const rows: { id: string; email: string }[] = await db
      .selectFrom('users')
      .select(['id', 'email'])
      .execute();
    for (const row of rows)
      await db
        .updateTable('users')
        .set({ email_canonical: canonical(row.email) })
        .where('id', '=', row.id)
        .execute();
    await sql`alter table users alter column email_canonical set not null`.execute(db);
    await db.schema
      .createIndex('users_email_canonical')
      .unique()
      .on('users')
      .column('email_canonical')
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('users_email_canonical').execute();
    await db.schema.alterTable('users').dropColumn('email_canonical').execute();
  },
};
