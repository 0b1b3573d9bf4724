/**
 * LocationCreated → create the location (supervise/company) and its areas (supervise/department).
 *
 * primary adapter: SQS FIFO batch (createQueueHandler) → use case: provisionLocation → secondary
 * adapters: service client, store (intent markers per location and area), publisher.
 */
import { createQueueHandler } from '#functions/commons/queue-handler.ts';
import { provisionLocation } from './provision-location.ts';

export const handler = createQueueHandler({ detailType: 'LocationCreated', useCase: provisionLocation });
