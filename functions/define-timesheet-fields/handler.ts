/**
 * TimesheetFieldsDefined → the missing timesheet custom field definitions → TimesheetFieldsSynced.
 *
 * primary adapter: SQS FIFO batch (createRouteHandler) → use case: defineTimesheetFields →
 * secondary adapters: service client, store, publisher.
 */
import * as timesheetFieldsDefined from '#functions/contracts/inbound/timesheet-fields-defined.ts';
import * as timesheetFieldsSynced from '#functions/contracts/outbound/timesheet-fields-synced.ts';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { defineTimesheetFields } from './define-timesheet-fields.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export const createHandler = (dependencyOptions?: DependencyOptions) =>
  createRouteHandler({
    contract: timesheetFieldsDefined,
    publishes: [timesheetFieldsSynced],
    useCase: defineTimesheetFields,
    ...(dependencyOptions ? { dependencyOptions } : {}),
  });

export const handler = createHandler();
