/**
 * EmployeeChanged → apply custom fields, regular hours, pay rate and leave balances to an employee.
 *
 * primary adapter: SQS FIFO batch (createRouteHandler: decode, idempotency per event id, SyncFailed
 * or retry per record) → use case: syncEmployee → secondary adapters: service client, store,
 * publisher.
 */
import * as employeeChanged from '#functions/contracts/inbound/employee-changed.ts';
import * as employeeSynced from '#functions/contracts/outbound/employee-synced.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { syncEmployee } from './sync-employee.ts';

export const handler = createRouteHandler({
  contract: employeeChanged,
  publishes: [employeeSynced],
  useCase: syncEmployee,
});
