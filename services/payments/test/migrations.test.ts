// Every payments migration undone and redone on a copy of the template; the migrate command's answers.
import { describeMigrations } from '@omc/testkit/migration-suite';
import { migrations } from '../src/db/migrations/index.js';

describeMigrations('payments', migrations);
