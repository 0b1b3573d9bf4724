/**
 * AccountCreated → provision a business in the service.
 *
 * primary adapter: SQS FIFO batch (createQueueHandler: decode, idempotency per event id, SyncFailed
 * or retry per record) → use case: provisionBusiness → secondary adapters: service client, store,
 * publisher.
 */
import { createQueueHandler } from '#functions/commons/queue-handler.ts';
import { provisionBusiness } from './provision-business.ts';

export const handler = createQueueHandler({ detailType: 'AccountCreated', useCase: provisionBusiness });
