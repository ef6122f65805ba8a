import type { Kysely, Migration } from 'kysely';

// Whether the user's sign-up clicks were granted: at registration, or (with
// SIGNUP_FREE_CLICKS_AFTER_VERIFICATION) once the email is verified. Every user before this had them.
export const signupGrantMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('users')
      .addColumn('signup_clicks_granted', 'boolean', (c) => c.notNull().defaultTo(true))
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('users').dropColumn('signup_clicks_granted').execute();
  },
};
