import {
  type InboundDetailType,
  inboundContracts,
  outboundContracts,
} from '#functions/commons/contracts/registry.ts';
import type { InboundContract } from '#functions/commons/contracts/route-decoder.ts';
import type { Dependencies } from '#functions/commons/function-dependencies.ts';
import type { RouteQueue } from '#functions/commons/route-queue.ts';
import { createRouteHandler, type QueueHandler, type UseCase } from './route-handler.ts';

export {
  createRouteHandler,
  type QueueHandler,
  type RouteHandlerOptions,
  type UseCase,
  type UseCaseEvent,
  type UseCaseInput,
} from './route-handler.ts';

type RouteSelector<K extends InboundDetailType> =
  | { route: { readonly detailType: K }; detailType?: never }
  | { detailType: K; route?: never };

export type QueueHandlerOptions<K extends InboundDetailType> = RouteSelector<K> & {
  useCase: UseCase<K>;
  /** @default createRouteHandler's: loadConfig() checked when the handler is created, every outbound contract */
  dependencies?: () => Dependencies;
  /** @default createRouteHandler's: the SQS queues the environment names */
  queue?: () => RouteQueue;
};

/**
 * The queue runtime of `route-handler.ts` with the route's contract looked up in the registry and
 * every outbound contract publishable: for tests and tools. Deployed handlers call
 * `createRouteHandler` with their own contracts, so their bundles leave the registry out.
 */
export function createQueueHandler<K extends InboundDetailType>(
  options: QueueHandlerOptions<K>,
): QueueHandler {
  const selected: K | undefined = options.route?.detailType ?? options.detailType;
  if (selected === undefined) throw new TypeError('createQueueHandler needs a route or a detailType');
  return createRouteHandler<K>({
    contract: inboundContracts[selected] as unknown as InboundContract<K>,
    publishes: Object.values(outboundContracts),
    useCase: options.useCase,
    ...(options.dependencies ? { dependencies: options.dependencies } : {}),
    ...(options.queue ? { queue: options.queue } : {}),
  });
}
