/**
 * PayReturnsRequested → read each timesheet's pay returns and publish them normalized.
 *
 * primary adapter: SQS FIFO batch (createQueueHandler) → use case: readPayReturns → secondary
 * adapters: service client, store, publisher.
 */
import { createQueueHandler } from '#functions/commons/queue-handler.ts';
import { readPayReturns } from './pay-returns.ts';

export const handler = createQueueHandler({ detailType: 'PayReturnsRequested', useCase: readPayReturns });
