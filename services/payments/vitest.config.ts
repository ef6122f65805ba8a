import { serviceTestConfig } from '@omc/testkit/vitest-config';

export default serviceTestConfig();
