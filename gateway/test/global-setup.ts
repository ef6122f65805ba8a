import { infraGlobalSetup } from '@omc/testkit/global-setup';

export default infraGlobalSetup({ name: 'gateway' });
