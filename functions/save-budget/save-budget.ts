import type { BudgetSetDetail } from '#functions/contracts/inbound/budget-set.ts';
import { ServiceRejectedError } from '#functions/domain/errors.ts';
import { provisionedBusinessOf } from '#functions/domain/provisioned-business.ts';
import { serviceRejection } from '#functions/domain/service-rejection.ts';
import type { OutboundEvent } from '#functions/publisher/publisher.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import type { UseCaseInput } from '#functions/runtime/use-case.ts';
import type { InstallClient } from '#functions/service/install.ts';
import type { MetricItem, MetricRecord } from '#functions/service/records/metrics.ts';
import { recordSyncSuccess } from '#functions/store/business.ts';
import { midnightsIn } from './local-midnight.ts';

/**
 * Items per metrics:bulk request. The spec gives no maximum for bulk requests; 100 keeps each
 * request small (a year of days is 4 requests) and well inside any plausible body limit.
 */
export const METRICS_BULK_CHUNK_SIZE = 100;

export const WAGE_BUDGET_TYPE = 'budget_wage';

/**
 * saveBudget — BudgetSet → metrics (or metrics:bulk) → BudgetSaved.
 *
 * Input: the BudgetSet detail (accountId, locationId, areaId?, kind WAGE|HOURS, timeZone (UTC by
 * default), days [{date, value}] 1–366, reference?).
 * Output: one `BudgetSaved` {hostname, locationId, areaId?, count, ids} with the metric ids in the
 * order of `days`.
 *
 * Steps:
 * 1. Resolve the account's install from the table (never from the event); no ACTIVE business →
 *    RetryableError BUSINESS_NOT_PROVISIONED.
 * 2. One metric item per day: timestamp = local midnight of the date in `timeZone` (unix seconds,
 *    DST-correct), type `budget_wage` (WAGE) or the configured HOUR_BUDGET_TYPE (HOURS), location,
 *    area when given, reference when given.
 * 3. Up to METRICS_BULK_THRESHOLD days: one real-time `metrics` request. More: `metrics:bulk` in
 *    chunks of METRICS_BULK_CHUNK_SIZE (the spec warns bulk data may show up later).
 * 4. A refusal (unknown location, area of another location) → SyncFailed with the service's code.
 *
 * Redelivery is safe without a guard: a metric value replaces the earlier one for the same
 * location, area, type and timestamp, so sending the same budget twice leaves the same values.
 * A chunked save that fails midway is retried whole for the same reason.
 */
export async function saveBudget(
  { detail }: UseCaseInput<BudgetSetDetail>,
  { store, service, config, clock }: Dependencies,
): Promise<OutboundEvent[]> {
  const business = await provisionedBusinessOf(store, detail.accountId);
  const install = service.install(business.hostname);
  const type = detail.kind === 'WAGE' ? WAGE_BUDGET_TYPE : config.hourBudgetType;

  const midnightOf = midnightsIn(detail.timeZone);
  const items: MetricItem[] = detail.days.map((day) => ({
    timestamp: midnightOf(day.date),
    type,
    value: day.value,
    location: detail.locationId,
    ...(detail.areaId === undefined ? {} : { area: detail.areaId }),
    ...(detail.reference === undefined ? {} : { reference: detail.reference }),
  }));

  const saved =
    items.length > config.metricsBulkThreshold
      ? await saveInChunks(install, items)
      : await refusalsAsSyncFailed(() => install.saveMetrics(items));

  await recordSyncSuccess(store, detail.accountId, clock.now());
  return [
    {
      detailType: 'BudgetSaved',
      detail: {
        hostname: business.hostname,
        locationId: detail.locationId,
        ...(detail.areaId === undefined ? {} : { areaId: detail.areaId }),
        count: saved.length,
        ids: saved.map((record) => String(record.id)),
      },
    },
  ];
}

async function saveInChunks(install: InstallClient, items: MetricItem[]): Promise<MetricRecord[]> {
  const saved: MetricRecord[] = [];
  for (let start = 0; start < items.length; start += METRICS_BULK_CHUNK_SIZE) {
    const chunk = items.slice(start, start + METRICS_BULK_CHUNK_SIZE);
    saved.push(...(await refusalsAsSyncFailed(() => install.saveMetricsBulk(chunk))));
  }
  return saved;
}

async function refusalsAsSyncFailed<T>(save: () => Promise<T>): Promise<T> {
  try {
    return await save();
  } catch (error) {
    if (error instanceof ServiceRejectedError) throw serviceRejection('saving budget metrics', error);
    throw error;
  }
}
