import type { OutboxTable } from '@omc/service-kit';

export interface Database extends OutboxTable {}
