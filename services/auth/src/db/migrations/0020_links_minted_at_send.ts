// Mailed links are minted when the mail is sent: a reset request or an email change is stored before any
// token exists (its hash columns empty until the mailer mints one), and the mail queue keeps what to
// render (language, parameters, which link to mint) instead of the rendered text with its link. Sent mail
// keeps no text. Frozen in time: Kysely<any>, no application imports.
import { sql, type Kysely, type Migration } from 'kysely';

export const linksMintedAtSendMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql`alter table password_reset_tokens alter column token_hash drop not null`.execute(db);
    await sql`alter table email_changes
      alter column confirm_token_hash drop not null,
      alter column undo_token_hash drop not null`.execute(db);
    await sql`alter table mail_queue
      alter column subject drop not null,
      alter column text drop not null,
      alter column html drop not null,
      add column language text,
      add column params jsonb,
      add column link jsonb,
      add column dropped_at timestamptz`.execute(db);
    // Mail already sent kept its links in its text: nothing needs it any more.
    await sql`update mail_queue set text = null, html = null where sent_at is not null`.execute(db);
  },
  async down(db: Kysely<any>) {
    // Mail queued to be rendered at send cannot be sent by the older sender: it is dropped.
    await sql`delete from mail_queue where text is null and sent_at is null`.execute(db);
    await sql`update mail_queue set subject = coalesce(subject, ''), text = coalesce(text, ''),
      html = coalesce(html, '')`.execute(db);
    await sql`alter table mail_queue
      drop column dropped_at,
      drop column link,
      drop column params,
      drop column language,
      alter column subject set not null,
      alter column text set not null,
      alter column html set not null`.execute(db);
    // A request no link was minted for keeps a hash no token has: its link cannot be used.
    await sql`update password_reset_tokens set token_hash = md5(random()::text || id::text)
      where token_hash is null`.execute(db);
    await sql`update email_changes
      set confirm_token_hash = coalesce(confirm_token_hash, md5(random()::text || id::text || 'c')),
          undo_token_hash = coalesce(undo_token_hash, md5(random()::text || id::text || 'u'))
      where confirm_token_hash is null or undo_token_hash is null`.execute(db);
    await sql`alter table email_changes
      alter column confirm_token_hash set not null,
      alter column undo_token_hash set not null`.execute(db);
    await sql`alter table password_reset_tokens alter column token_hash set not null`.execute(db);
  },
};
