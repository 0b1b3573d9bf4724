/**
 * RecordsRequested → one page of an install resource's records.
 *
 * primary adapter: SQS FIFO batch (createRouteHandler) → use case: reportRecords → secondary
 * adapters: service client, store, publisher.
 */
import * as recordsRequested from '#functions/contracts/inbound/records-requested.ts';
import * as recordsReported from '#functions/contracts/outbound/records-reported.ts';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { reportRecords } from './read-records.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export const createHandler = (dependencyOptions?: DependencyOptions) =>
  createRouteHandler({
    contract: recordsRequested,
    publishes: [recordsReported],
    useCase: reportRecords,
    ...(dependencyOptions ? { dependencyOptions } : {}),
  });

export const handler = createHandler();
