import { infraGlobalSetup } from '@omc/testkit/global-setup';
import { migrations } from '../src/db/migrations/index.js';

export default infraGlobalSetup({ name: 'payments', migrations });
