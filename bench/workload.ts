import { createHash, randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { PIPE_EVENT_KEY } from '#functions/contracts/envelope.ts';
import { INBOUND_DETAIL_TYPES } from '#functions/contracts/route-decoder.ts';
import { inboundSamples } from '#functions/contracts/samples.ts';
import { DEFAULT_INBOUND_SOURCE } from '#functions/contracts/source.ts';
import { eventTime, LOCAL_ACCOUNT_ID, scheduledEvent, toSqsEvent } from '#local/aws/lambda.ts';
import { LOCAL_REGION } from '#local/template.ts';

/**
 * The inbound events the bench sends: EventBridge events as the intake pipe puts them on a route's
 * SQS FIFO queue, built from the same samples as `events/`, with fresh ids so idempotency never
 * short-circuits a measured record.
 */

/** The inbound flows, in the order the bench drives them (the route decoder's list). */
export type FlowName = (typeof INBOUND_DETAIL_TYPES)[number];

export const FLOWS: readonly FlowName[] = INBOUND_DETAIL_TYPES;

export interface InboundEntry {
  readonly id: string;
  readonly detailType: FlowName;
  readonly detail: Record<string, unknown> & { accountId: string };
}

let sequence = 0;
const runTag = Date.now().toString(36);

export function uniqueAccountId(prefix = 'bench'): string {
  sequence += 1;
  return `${prefix}-${runTag}-${sequence}`;
}

let lastOccurredMs = 0;

/**
 * The `occurredAt` a partner's clock gives a change made now, strictly later than the previous
 * one: the bench's events on one thing are newer in the order it makes them, so none is superseded
 * (an older event on a thing changes nothing: docs/reliability.md, "Order per thing") and every
 * measured record does its work.
 */
function occurredNow(): string {
  lastOccurredMs = Math.max(Date.now(), lastOccurredMs + 1);
  return new Date(lastOccurredMs).toISOString();
}

export function accountCreated(accountId = uniqueAccountId()): InboundEntry {
  const sample = inboundSamples.AccountCreated;
  return {
    id: randomUUID(),
    detailType: 'AccountCreated',
    detail: {
      ...sample,
      accountId,
      businessName: `Bench ${accountId}`,
      owner: { ...sample.owner, email: `owner+${accountId}@example.com` },
    },
  };
}

export function planChosen(accountId: string, plan: 'PREMIUM' | 'FREE' = 'PREMIUM'): InboundEntry {
  const { billingAddress } = inboundSamples.PlanChosen;
  return {
    id: randomUUID(),
    detailType: 'PlanChosen',
    detail: { accountId, plan, ...(plan === 'PREMIUM' ? { billingAddress } : {}), occurredAt: occurredNow() },
  };
}

export function subscriptionStatusRequested(accountId: string): InboundEntry {
  return { id: randomUUID(), detailType: 'SubscriptionStatusRequested', detail: { accountId } };
}

/** The full sample (four parts) unless `parts` narrows it, e.g. to one known custom field. */
export function employeeChanged(
  accountId: string,
  parts: Partial<Record<'customFields' | 'regularHours' | 'payRate' | 'leaveBalances', unknown>> = {},
): InboundEntry {
  const sample = inboundSamples.EmployeeChanged;
  const detail = Object.keys(parts).length > 0 ? { employeeId: sample.employeeId, ...parts } : sample;
  return {
    id: randomUUID(),
    detailType: 'EmployeeChanged',
    detail: { ...detail, accountId, occurredAt: occurredNow() },
  };
}

export function locationCreated(accountId: string, areaCount = 2): InboundEntry {
  const sample = inboundSamples.LocationCreated;
  const areas = Array.from({ length: areaCount }, (_, index) => ({
    name: `Area ${index + 1}`,
    exportName: `AREA${index + 1}`,
  }));
  return {
    id: randomUUID(),
    detailType: 'LocationCreated',
    detail: { ...sample, accountId, locationRef: `loc-${randomUUID()}`, areas, occurredAt: occurredNow() },
  };
}

/** A budget of `days` consecutive days from 2025-03-03. */
export function budgetSet(accountId: string, days = 7): InboundEntry {
  const sample = inboundSamples.BudgetSet;
  const start = Date.UTC(2025, 2, 3);
  return {
    id: randomUUID(),
    detailType: 'BudgetSet',
    detail: {
      ...sample,
      accountId,
      days: Array.from({ length: days }, (_, index) => ({
        date: new Date(start + index * 86_400_000).toISOString().slice(0, 10),
        value: 1000 + index,
      })),
      occurredAt: occurredNow(),
    },
  };
}

export function payReturnsRequested(accountId: string): InboundEntry {
  return {
    id: randomUUID(),
    detailType: 'PayReturnsRequested',
    detail: { ...inboundSamples.PayReturnsRequested, accountId },
  };
}

export function timesheetFieldsDefined(accountId: string): InboundEntry {
  return {
    id: randomUUID(),
    detailType: 'TimesheetFieldsDefined',
    detail: { ...inboundSamples.TimesheetFieldsDefined, accountId },
  };
}

export function payRateAssigned(accountId: string, employeeIds: number[]): InboundEntry {
  return {
    id: randomUUID(),
    detailType: 'PayRateAssigned',
    detail: { ...inboundSamples.PayRateAssigned, accountId, employeeIds, occurredAt: occurredNow() },
  };
}

/** One steady-state event of a flow for an already provisioned account. */
export function flowEvent(flow: FlowName, accountId: string, index: number): InboundEntry {
  switch (flow) {
    case 'AccountCreated':
      return accountCreated();
    case 'PlanChosen':
      // Alternating keeps every event a real plan change (trial → paid → free → paid ...).
      return planChosen(accountId, index % 2 === 0 ? 'PREMIUM' : 'FREE');
    case 'SubscriptionStatusRequested':
      return subscriptionStatusRequested(accountId);
    case 'EmployeeChanged':
      return employeeChanged(accountId);
    case 'LocationCreated':
      return locationCreated(accountId);
    case 'BudgetSet':
      return budgetSet(accountId);
    case 'PayReturnsRequested':
      return payReturnsRequested(accountId);
    case 'PayRatesRequested':
    case 'ReferenceDataRequested':
    case 'RecordsRequested':
    case 'TimesheetFieldsDefined':
    case 'PayRateAssigned':
      return { id: randomUUID(), detailType: flow, detail: { ...inboundSamples[flow], accountId } };
  }
}

/** The EventBridge event exactly as the SQS target receives it. */
export function busEvent(entry: InboundEntry, at = new Date()) {
  return {
    version: '0',
    id: entry.id,
    'detail-type': entry.detailType,
    source: DEFAULT_INBOUND_SOURCE,
    account: LOCAL_ACCOUNT_ID,
    time: eventTime(at),
    region: LOCAL_REGION,
    resources: [],
    detail: entry.detail,
  };
}

export function sqsBatch(entries: readonly InboundEntry[], queueName = 'bench.fifo'): SQSEvent {
  const now = Date.now();
  return toSqsEvent(
    entries.map((entry, index) => {
      const body = JSON.stringify({ [PIPE_EVENT_KEY]: busEvent(entry) });
      return {
        messageId: randomUUID(),
        receiptHandle: randomUUID(),
        body,
        md5OfBody: createHash('md5').update(body).digest('hex'),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: String(now),
          SenderId: 'AROA000000000000LOCAL:bench',
          ApproximateFirstReceiveTimestamp: String(now),
          SequenceNumber: String(now * 1000 + index).padStart(20, '0'),
          MessageGroupId: entry.detail.accountId,
          MessageDeduplicationId: entry.id,
        },
        messageAttributes: {},
      };
    }),
    `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${queueName}`,
    LOCAL_REGION,
  );
}

/** The event a scheduled function's rule sends it at `at`. */
export function scheduleEvent(functionName: string, at: Date) {
  return scheduledEvent(
    `arn:aws:events:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:rule/${functionName}-schedule`,
    LOCAL_REGION,
    at,
  );
}
