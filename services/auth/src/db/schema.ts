import type { Language, Role } from '@omc/contracts';
import type { OutboxTable } from '@omc/service-kit';
import type { ColumnType, Generated } from 'kysely';

export interface UsersTable {
  id: string;
  username: string;
  email: string;
  password_hash: string;
  role: ColumnType<Role, Role | undefined, Role>;
  preferred_language: ColumnType<Language, Language | undefined, Language>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface RefreshTokensTable {
  id: string;
  user_id: string;
  family_id: string;
  token_hash: string;
  created_at: Generated<Date>;
  expires_at: Date;
  rotated_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface BootstrapAdminTable {
  singleton: ColumnType<boolean, boolean | undefined, never>;
  user_id: string | null;
  created_at: Generated<Date>;
}

export interface Database extends OutboxTable {
  bootstrap_admin: BootstrapAdminTable;
  users: UsersTable;
  refresh_tokens: RefreshTokensTable;
}
