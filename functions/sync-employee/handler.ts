/**
 * EmployeeChanged → apply custom fields, regular hours, pay rate and leave balances to an employee.
 *
 * primary adapter: SQS FIFO batch (createQueueHandler: decode, idempotency per event id, SyncFailed
 * or retry per record) → use case: syncEmployee → secondary adapters: service client, store,
 * publisher.
 */
import { createQueueHandler } from '#functions/commons/queue-handler.ts';
import { syncEmployee } from './sync-employee.ts';

export const handler = createQueueHandler({ detailType: 'EmployeeChanged', useCase: syncEmployee });
