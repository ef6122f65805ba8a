import { sql, type Kysely, type Migration } from 'kysely';

// The admin list reads what a page of players was paid out (payouts by user id, one query per page).
export const payoutsByUserMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql`create index if not exists payouts_user on payouts (user_id, status)`.execute(db);
  },
  async down(db: Kysely<any>) {
    await sql`drop index if exists payouts_user`.execute(db);
  },
};
