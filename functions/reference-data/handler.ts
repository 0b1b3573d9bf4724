/**
 * ReferenceDataRequested → the install's countries, states, leave rules, award library and an
 * employee's agreed hours, as asked.
 *
 * primary adapter: SQS FIFO batch (createRouteHandler) → use case: reportReferenceData →
 * secondary adapters: service client, store (reference cache), publisher.
 */
import * as referenceDataRequested from '#functions/contracts/inbound/reference-data-requested.ts';
import * as referenceData from '#functions/contracts/outbound/reference-data.ts';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import { createRouteHandler } from '#functions/runtime/route-handler.ts';
import { reportReferenceData } from './reference-data.ts';

/** The handler; a local run passes what it adds to the function's collaborators (dependencies.ts). */
export const createHandler = (dependencyOptions?: DependencyOptions) =>
  createRouteHandler({
    contract: referenceDataRequested,
    publishes: [referenceData],
    useCase: reportReferenceData,
    ...(dependencyOptions ? { dependencyOptions } : {}),
  });

export const handler = createHandler();
