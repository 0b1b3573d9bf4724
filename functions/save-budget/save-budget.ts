import type { BudgetSetDetail } from '#functions/contracts/inbound/budget-set.ts';
import { ServiceRejectedError } from '#functions/domain/errors.ts';
import { EventOrder, type Thing } from '#functions/domain/event-order.ts';
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
 * A budget cell, the thing a BudgetSet sets per day: location, area (or none: the location's own
 * budget), kind and date. Each day applies on its own (partial update per day).
 */
export function budgetCell(
  detail: Pick<BudgetSetDetail, 'locationId' | 'areaId' | 'kind'>,
  date: string,
): Thing {
  return {
    key: `budget#${detail.locationId}#${detail.areaId ?? '-'}#${detail.kind}#${date}`,
    field: `days[date=${date}]`,
  };
}

/**
 * saveBudget — BudgetSet → metrics (or metrics:bulk) → BudgetSaved.
 *
 * Input: the BudgetSet detail (accountId, locationId, areaId?, kind WAGE|HOURS, timeZone (UTC by
 * default), days [{date, value}] 1–366, reference?, occurredAt?).
 * Output: one `BudgetSaved` {hostname, locationId, areaId?, count, ids} with the metric ids of the
 * days saved, in the order of `days`; one `SyncSkipped` SUPERSEDED listing the days a newer event
 * had already set (no BudgetSaved when that is every day).
 *
 * Steps:
 * 1. Resolve the account's install from the table (never from the event); no ACTIVE business →
 *    waits, fails or counts as provisionedBusinessOf says (domain/provisioned-business.ts).
 * 2. Last writer wins per budget cell (budgetCell, domain/event-order.ts): a day a newer event
 *    (by occurredAt, then event id) was applied to is left as it is.
 * 3. One metric item per remaining day: timestamp = local midnight of the date in `timeZone` (unix
 *    seconds, DST-correct), type `budget_wage` (WAGE) or the configured HOUR_BUDGET_TYPE (HOURS),
 *    location, area when given, reference when given.
 * 4. Up to METRICS_BULK_THRESHOLD days: one real-time `metrics` request. More: `metrics:bulk` in
 *    chunks of METRICS_BULK_CHUNK_SIZE (the spec warns bulk data may show up later). After each
 *    request, its days' positions move to this event.
 * 5. A refusal (unknown location, area of another location) → SyncFailed with the service's code.
 *
 * Redelivery is safe without a guard: a metric value replaces the earlier one for the same
 * location, area, type and timestamp, so sending the same budget twice leaves the same values.
 * A chunked save that fails midway is retried whole for the same reason.
 */
export async function saveBudget(
  { event, detail }: UseCaseInput<BudgetSetDetail>,
  { store, service, config, clock, lastWriterWins }: Dependencies,
): Promise<OutboundEvent[]> {
  const business = await provisionedBusinessOf(store, detail.accountId);
  const order = await EventOrder.read(
    store,
    business.hostname,
    event,
    detail,
    detail.days.map((day) => budgetCell(detail, day.date)),
    { lastWriterWins },
  );
  const days = detail.days.filter((day) => order.applies(budgetCell(detail, day.date)));
  const skipped = order.syncSkipped();
  if (days.length === 0) return skipped;

  const install = service.install(business.hostname);
  const type = detail.kind === 'WAGE' ? WAGE_BUDGET_TYPE : config.hourBudgetType;
  const midnightOf = midnightsIn(detail.timeZone);
  const items: Array<MetricItem & { date: string }> = days.map((day) => ({
    date: day.date,
    timestamp: midnightOf(day.date),
    type,
    value: day.value,
    location: detail.locationId,
    ...(detail.areaId === undefined ? {} : { area: detail.areaId }),
    ...(detail.reference === undefined ? {} : { reference: detail.reference }),
  }));
  const saved = async (chunk: ReadonlyArray<{ date: string }>) =>
    order.applied(
      chunk.map((item) => budgetCell(detail, item.date)),
      clock.now(),
    );

  let records: MetricRecord[];
  if (items.length > config.metricsBulkThreshold) {
    records = await saveInChunks(install, items, saved);
  } else {
    records = await refusalsAsSyncFailed(() => install.saveMetrics(items.map(metricItem)));
    await saved(items);
  }

  await recordSyncSuccess(store, detail.accountId, clock.now());
  return [
    {
      detailType: 'BudgetSaved',
      detail: {
        hostname: business.hostname,
        locationId: detail.locationId,
        ...(detail.areaId === undefined ? {} : { areaId: detail.areaId }),
        count: records.length,
        ids: records.map((record) => String(record.id)),
      },
    },
    ...skipped,
  ];
}

/** The metric item as the service takes it (without the date it was made for). */
function metricItem({ date: _date, ...item }: MetricItem & { date: string }): MetricItem {
  return item;
}

async function saveInChunks(
  install: InstallClient,
  items: ReadonlyArray<MetricItem & { date: string }>,
  saved: (chunk: ReadonlyArray<{ date: string }>) => Promise<void>,
): Promise<MetricRecord[]> {
  const records: MetricRecord[] = [];
  for (let start = 0; start < items.length; start += METRICS_BULK_CHUNK_SIZE) {
    const chunk = items.slice(start, start + METRICS_BULK_CHUNK_SIZE);
    records.push(...(await refusalsAsSyncFailed(() => install.saveMetricsBulk(chunk.map(metricItem)))));
    await saved(chunk);
  }
  return records;
}

async function refusalsAsSyncFailed<T>(save: () => Promise<T>): Promise<T> {
  try {
    return await save();
  } catch (error) {
    if (error instanceof ServiceRejectedError) throw serviceRejection('saving budget metrics', error);
    throw error;
  }
}
