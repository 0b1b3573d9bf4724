import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { InboundDetail, InboundDetailType } from '#functions/contracts/registry.ts';
import type { InboundEvent } from '#functions/contracts/route-decoder.ts';
import type { OutboundEvent } from '#functions/publisher/publisher.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import { MetricName } from '#functions/runtime/metric-names.ts';
import { metrics } from '#functions/runtime/observability.ts';
import { markApplied } from '#functions/store/applied-events.ts';
import { idempotencyPersistenceOptions } from '#functions/store/table.ts';

/** What a route's use case is given and gives back, and how it is run once per event. */

export interface UseCaseEvent {
  id: string;
  detailType: string;
  time: string;
  source: string;
}

export interface UseCaseInput<Detail = unknown> {
  event: UseCaseEvent;
  detail: Detail;
  /** 1 on the first delivery; use cases may log or relax on later ones. */
  receiveCount: number;
}

/**
 * A use case: returns the events to publish. `accountId` and `causationId` are filled in by the
 * runtime when a detail leaves them out.
 */
export type UseCase<K extends InboundDetailType = InboundDetailType> = (
  input: UseCaseInput<InboundDetail<K>>,
  dependencies: Dependencies,
) => Promise<OutboundEvent[]>;

/** A use case made idempotent on the EventBridge event id, with the collaborators it runs with. */
export interface IdempotentUseCase {
  readonly dependencies: Dependencies;
  readonly idempotencyConfig: IdempotencyConfig;
  readonly runOnce: (event: InboundEvent, receiveCount: number) => Promise<{ published: number }>;
}

/** Fills what every outbound detail carries, without overriding what the use case set. */
function completeDetail(event: OutboundEvent, source: InboundEvent): OutboundEvent {
  const detail: Record<string, unknown> = { ...(event.detail as Record<string, unknown>) };
  detail['accountId'] ??= source.detail.accountId;
  detail['causationId'] ??= source.id;
  return { detailType: event.detailType, detail };
}

/**
 * The unit made idempotent is "use case + publish": a publish failure re-runs the use case, whose
 * creates are guarded in the store, so its events are never lost. An event id that comes back
 * with another detail is refused (IdempotencyValidationError), not answered from the record.
 */
export function idempotentUseCase<K extends InboundDetailType>(route: {
  detailType: K;
  useCase: UseCase<K>;
  dependencies: Dependencies;
}): IdempotentUseCase {
  const { detailType, useCase, dependencies } = route;
  const idempotencyConfig = new IdempotencyConfig({
    eventKeyJmesPath: 'id',
    payloadValidationJmesPath: 'detail',
    throwOnNoIdempotencyKey: true,
    expiresAfterSeconds: dependencies.config.idempotencyTtlSeconds,
  });
  // Idempotency records live in the store's table, reached through the store's own low-level
  // client, so they can never point at another endpoint or table than the state they protect.
  const persistenceStore = new DynamoDBPersistenceLayer(
    idempotencyPersistenceOptions(dependencies.store.tableName, detailType, dependencies.store.client),
  );
  const useCaseAndPublish = async (event: InboundEvent, receiveCount: number) => {
    const outbound = await useCase(
      {
        event: { id: event.id, detailType: event.detailType, time: event.time, source: event.source },
        detail: event.detail as InboundDetail<K>,
        receiveCount,
      },
      dependencies,
    );
    const completed = outbound.map((item) => completeDetail(item, event));
    // Before the publish: a failed publish re-runs the unit, and the marker is written again.
    const markerTtl = dependencies.config.replayMarkerTtlSeconds;
    if (markerTtl !== undefined) {
      await markApplied(dependencies.store, event, { at: dependencies.clock.now(), ttlSeconds: markerTtl });
    }
    await dependencies.publisher.publish(completed);
    if (completed.length > 0)
      metrics.addMetric(MetricName.EventsPublished, MetricUnit.Count, completed.length);
    if (completed.some((item) => item.detailType === 'SyncSkipped'))
      metrics.addMetric(MetricName.EventsSuperseded, MetricUnit.Count, 1);
    return { published: completed.length };
  };
  return {
    dependencies,
    idempotencyConfig,
    runOnce: makeIdempotent(useCaseAndPublish, {
      persistenceStore,
      config: idempotencyConfig,
      // The detail-type, not the function name: keys survive a function rename or redeploy.
      keyPrefix: detailType,
      dataIndexArgument: 0,
    }),
  };
}
