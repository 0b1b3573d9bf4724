/**
 * EmployeeChanged → apply custom fields, regular hours, pay rate and leave balances to an employee.
 *
 * primary adapter: SQS FIFO batch (createRouteHandler: decode, idempotency per event id, SyncFailed
 * or retry per record) → use case: syncEmployee → secondary adapters: service client, store,
 * publisher.
 */
import * as employeeChanged from '#functions/contracts/inbound/employee-changed.ts';
import * as employeeSynced from '#functions/contracts/outbound/employee-synced.ts';
import * as syncSkipped from '#functions/contracts/outbound/sync-skipped.ts';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { syncEmployee } from './sync-employee.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export const createHandler = (dependencyOptions?: DependencyOptions) =>
  createRouteHandler({
    contract: employeeChanged,
    // SyncSkipped: an event older than one already applied to the same thing (last writer wins).
    publishes: [employeeSynced, syncSkipped],
    useCase: syncEmployee,
    ...(dependencyOptions ? { dependencyOptions } : {}),
  });

export const handler = createHandler();
