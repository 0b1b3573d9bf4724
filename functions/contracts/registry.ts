import type * as z from 'zod';
import * as accountCreated from './inbound/account-created.ts';
import * as budgetSet from './inbound/budget-set.ts';
import * as employeeChanged from './inbound/employee-changed.ts';
import * as locationCreated from './inbound/location-created.ts';
import * as payRateAssigned from './inbound/pay-rate-assigned.ts';
import * as payRatesRequested from './inbound/pay-rates-requested.ts';
import * as payReturnsRequested from './inbound/pay-returns-requested.ts';
import * as planChosen from './inbound/plan-chosen.ts';
import * as recordsRequested from './inbound/records-requested.ts';
import * as referenceDataRequested from './inbound/reference-data-requested.ts';
import * as subscriptionStatusRequested from './inbound/subscription-status-requested.ts';
import * as timesheetFieldsDefined from './inbound/timesheet-fields-defined.ts';
import * as budgetSaved from './outbound/budget-saved.ts';
import * as businessEditionChanged from './outbound/business-edition-changed.ts';
import * as businessGone from './outbound/business-gone.ts';
import * as businessProvisioned from './outbound/business-provisioned.ts';
import * as employeeSynced from './outbound/employee-synced.ts';
import * as locationProvisioned from './outbound/location-provisioned.ts';
import * as payRatesAssigned from './outbound/pay-rates-assigned.ts';
import * as payRatesReported from './outbound/pay-rates-reported.ts';
import * as payReturnsCompleted from './outbound/pay-returns-completed.ts';
import * as payReturnsReady from './outbound/pay-returns-ready.ts';
import * as planChanged from './outbound/plan-changed.ts';
import * as recordsReported from './outbound/records-reported.ts';
import * as referenceData from './outbound/reference-data.ts';
import * as subscriptionStatus from './outbound/subscription-status.ts';
import * as syncFailed from './outbound/sync-failed.ts';
import * as syncSkipped from './outbound/sync-skipped.ts';
import * as timesheetFieldsSynced from './outbound/timesheet-fields-synced.ts';
import * as trialEnded from './outbound/trial-ended.ts';
import * as trialExpiring from './outbound/trial-expiring.ts';

/** What every contract module exports. */
export interface EventContract<DetailType extends string = string> {
  /** The default EventBridge source (deployments may configure another). */
  readonly source: string;
  readonly detailType: DetailType;
  readonly version: '1';
  readonly description: string;
  readonly schema: z.ZodType;
  /**
   * Inbound: the things the event sets and what an older event (by `occurredAt`, then event id)
   * arriving after a newer one does to them; the event catalog lists it.
   */
  readonly ordering?: string;
}

/** Inbound contracts (partner → connector), keyed by detail-type, in the order of the demo scenario. */
export const inboundContracts = {
  AccountCreated: accountCreated,
  PlanChosen: planChosen,
  SubscriptionStatusRequested: subscriptionStatusRequested,
  EmployeeChanged: employeeChanged,
  LocationCreated: locationCreated,
  BudgetSet: budgetSet,
  PayReturnsRequested: payReturnsRequested,
  PayRatesRequested: payRatesRequested,
  ReferenceDataRequested: referenceDataRequested,
  RecordsRequested: recordsRequested,
  TimesheetFieldsDefined: timesheetFieldsDefined,
  PayRateAssigned: payRateAssigned,
} as const satisfies { [K in string]: EventContract<K> };

/** Outbound contracts (connector → partner), keyed by detail-type. */
export const outboundContracts = {
  BusinessProvisioned: businessProvisioned,
  PlanChanged: planChanged,
  TrialExpiring: trialExpiring,
  TrialEnded: trialEnded,
  BusinessEditionChanged: businessEditionChanged,
  BusinessGone: businessGone,
  EmployeeSynced: employeeSynced,
  LocationProvisioned: locationProvisioned,
  BudgetSaved: budgetSaved,
  PayReturnsReady: payReturnsReady,
  PayReturnsCompleted: payReturnsCompleted,
  SubscriptionStatus: subscriptionStatus,
  PayRatesReported: payRatesReported,
  ReferenceData: referenceData,
  RecordsReported: recordsReported,
  TimesheetFieldsSynced: timesheetFieldsSynced,
  PayRatesAssigned: payRatesAssigned,
  SyncFailed: syncFailed,
  SyncSkipped: syncSkipped,
} as const satisfies { [K in string]: EventContract<K> };

export type InboundDetailType = keyof typeof inboundContracts;
export type OutboundDetailType = keyof typeof outboundContracts;

/** Detail of an inbound event after parsing (defaults applied). */
export type InboundDetail<K extends InboundDetailType = InboundDetailType> = z.output<
  (typeof inboundContracts)[K]['schema']
>;
/** Detail as a partner may send it (defaulted fields optional). */
export type InboundDetailInput<K extends InboundDetailType = InboundDetailType> = z.input<
  (typeof inboundContracts)[K]['schema']
>;
export type OutboundDetail<K extends OutboundDetailType = OutboundDetailType> = z.output<
  (typeof outboundContracts)[K]['schema']
>;

export const inboundDetailTypes = Object.keys(inboundContracts) as InboundDetailType[];
export const outboundDetailTypes = Object.keys(outboundContracts) as OutboundDetailType[];

export function isInboundDetailType(value: unknown): value is InboundDetailType {
  return typeof value === 'string' && Object.hasOwn(inboundContracts, value);
}

export function isOutboundDetailType(value: unknown): value is OutboundDetailType {
  return typeof value === 'string' && Object.hasOwn(outboundContracts, value);
}
