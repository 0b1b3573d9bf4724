import { outboundContracts } from '#functions/commons/contracts/registry.ts';
import { createEventPublisher, type Publisher, type PublisherOptions } from './event-publisher.ts';

export {
  createEventPublisher,
  type EventPublisherOptions,
  entrySize,
  MAX_ENTRIES_PER_PUT,
  MAX_ENTRY_BYTES,
  type OutboundContracts,
  type OutboundEvent,
  OutboundEventError,
  outboundContractsOf,
  type Publisher,
  type PublisherOptions,
} from './event-publisher.ts';

/**
 * A publisher that may publish every outbound detail-type, for tools and tests. Handlers build
 * theirs with only the contracts they publish (`createEventPublisher`), so their bundles do not
 * construct every outbound schema at cold start.
 */
export function createPublisher(options: PublisherOptions): Publisher {
  return createEventPublisher({ ...options, contracts: outboundContracts });
}
