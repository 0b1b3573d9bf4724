/**
 * Helpers shared by the install-flow tests: a provisioned account, the sandbox's view of one
 * install (records and the calls made to it), and the collaborators to run a use case directly
 * (for crash simulations that need a service wrapper).
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { InboundDetail, InboundDetailType } from '#functions/contracts/registry.ts';
import type { UseCaseInput } from '#functions/runtime/use-case.ts';
import {
  type FlowHarness,
  inboundEvent,
  type PublishedEvent,
  provisionAccount,
  type SandboxRequest,
  sqsFifoBatch,
  uniqueAccountId,
} from '#test/flows/support/harness.ts';

export interface ProvisionedInstall {
  accountId: string;
  hostname: string;
}

export async function provisionedInstall(
  flow: FlowHarness,
  label: string,
  overrides: Record<string, unknown> = {},
): Promise<ProvisionedInstall> {
  const accountId = uniqueAccountId(label);
  const hostname = await provisionAccount(flow, accountId, overrides);
  return { accountId, hostname };
}

export type InstallRecords = Record<string, Array<Record<string, unknown>>>;

export function installRecords(flow: FlowHarness, hostname: string): Promise<InstallRecords> {
  return flow.sandbox<InstallRecords>('GET', `/_sandbox/installs/${hostname}`);
}

/** Calls made to one install so far, oldest first, as "METHOD /path below the install". */
export async function installCalls(flow: FlowHarness, hostname: string): Promise<string[]> {
  const prefix = `/installs/${hostname}`;
  const requests = await flow.sandbox<SandboxRequest[]>('GET', '/_sandbox/requests');
  return requests
    .filter((request) => request.path.startsWith(`${prefix}/`))
    .map((request) => `${request.method} ${request.path.slice(prefix.length)}`);
}

/** Runs `act` and returns the install calls it made. */
export async function callsDuring(
  flow: FlowHarness,
  hostname: string,
  act: () => Promise<unknown>,
): Promise<string[]> {
  const before = (await installCalls(flow, hostname)).length;
  await act();
  return (await installCalls(flow, hostname)).slice(before);
}

export interface Delivery {
  eventId: string;
  failures: string[];
  /** Events the connector published with this event as cause. */
  published: PublishedEvent[];
}

/** Delivers one inbound event to the route's real handler, as one SQS FIFO batch. */
export async function deliver(
  flow: FlowHarness,
  functionName: string,
  detailType: InboundDetailType,
  detail: Record<string, unknown>,
  options: { id?: string; receiveCount?: number } = {},
): Promise<Delivery> {
  const event = inboundEvent(detailType, detail, options.id === undefined ? {} : { id: options.id });
  const batch = sqsFifoBatch(
    [event],
    options.receiveCount === undefined ? {} : { receiveCount: options.receiveCount },
  );
  const response = await flow.invokeBatch(functionName, batch);
  return {
    eventId: event.id,
    failures: response.batchItemFailures.map((failure) => failure.itemIdentifier),
    published: flow.published().filter((published) => published.detail['causationId'] === event.id),
  };
}

/** Delivers one inbound event like `deliver` and returns it with the install calls it caused. */
export async function deliverWithCalls(
  flow: FlowHarness,
  hostname: string,
  functionName: string,
  detailType: InboundDetailType,
  detail: Record<string, unknown>,
): Promise<{ delivery: Delivery; calls: string[] }> {
  const before = (await installCalls(flow, hostname)).length;
  const delivery = await deliver(flow, functionName, detailType, detail);
  return { delivery, calls: (await installCalls(flow, hostname)).slice(before) };
}

/** The one event of `detailType` a delivery published, or a failure naming what was published. */
export function onlyPublished(delivery: Delivery, detailType: string): Record<string, unknown> {
  const matching = delivery.published.filter((event) => event.detailType === detailType);
  if (matching.length !== 1 || delivery.published.length !== 1) {
    throw new Error(
      `expected exactly one ${detailType}, got ${JSON.stringify(delivery.published.map((event) => [event.detailType, event.detail]))}`,
    );
  }
  return matching[0]!.detail;
}

export type InvalidDetailCase = [what: string, overrides: Record<string, unknown>, field: string];

/**
 * One test per case, for a route's input validation: the invalid detail is answered with
 * SyncFailed INVALID_DETAIL naming the field, as the only published event, and the install sees
 * no call.
 */
export function itAnswersInvalidDetails(
  flow: FlowHarness,
  route: {
    functionName: string;
    detailType: InboundDetailType;
    accountLabel: string;
    detail: (accountId: string, overrides: Record<string, unknown>) => Record<string, unknown>;
  },
  cases: InvalidDetailCase[],
): void {
  for (const [what, overrides, field] of cases) {
    it(`answers ${what} with SyncFailed naming ${field}, calling nothing`, async () => {
      // Prepare
      const { accountId, hostname } = await provisionedInstall(flow, route.accountLabel);

      // Act
      const { delivery, calls } = await deliverWithCalls(
        flow,
        hostname,
        route.functionName,
        route.detailType,
        route.detail(accountId, overrides),
      );

      // Assess
      expect(onlyPublished(delivery, 'SyncFailed')).toMatchObject({
        code: 'INVALID_DETAIL',
        message: expect.stringContaining(field),
      });
      expect(calls).toEqual([]);
    });
  }
}

export function useCaseInput<K extends InboundDetailType>(
  detailType: K,
  detail: InboundDetail<K>,
  eventId: string = randomUUID(),
): UseCaseInput<InboundDetail<K>> {
  return {
    event: { id: eventId, detailType, time: new Date().toISOString(), source: 'partner.app' },
    detail,
    receiveCount: 1,
  };
}

/** A weekly regular-hours (agreed hour) value of `threshold` hours, the plainest form the service takes. */
export function simpleHours(threshold: number) {
  return {
    threshold,
    applyThreshold: false,
    workPeriod: {
      cycle: 'WEEKLY',
      dayOfWeek: 'MONDAY',
      startDate: '2026-03-02T00:00:00Z',
      startCycleDate: '2026-03-02T00:00:00Z',
      endCycleDate: '2026-03-09T00:00:00Z',
    },
    workingDaysPerCycle: 5,
    details: { weeks: [] },
  };
}
