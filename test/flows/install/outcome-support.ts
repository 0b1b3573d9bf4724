/**
 * Shared by the "outcome unknown" flow tests: one create call that loses its answer, and the
 * events and sandbox records those tests look at.
 */
import type { InboundDetailType } from '#functions/contracts/registry.ts';
import type { FlowHarness } from '#test/flows/support/harness.ts';
import { type Delivery, deliver, type InstallRecords } from './install-support.ts';

/**
 * `drop-after-commit`: the service applies the call, then the connection dies before the answer.
 * `timeout`: the service holds the request without applying it (sandbox/server.ts) until the
 * client gives up — the create that did NOT commit.
 */
export type LostAnswer = 'drop-after-commit' | 'timeout';

/** Delivers an event while the next call below `pathPrefix` loses its answer; faults are cleared after. */
export async function deliverLosingAnswer(
  flow: FlowHarness,
  lost: { kind: LostAnswer; pathPrefix: string },
  route: { functionName: string; detailType: InboundDetailType; detail: Record<string, unknown> },
): Promise<Delivery> {
  await flow.sandbox('POST', '/_sandbox/faults', {
    rate: 1,
    kinds: [lost.kind],
    seed: 1,
    count: 1,
    pathPrefix: lost.pathPrefix,
  });
  try {
    return await deliver(flow, route.functionName, route.detailType, route.detail);
  } finally {
    await flow.sandbox('DELETE', '/_sandbox/faults');
  }
}

/** The same event again, as SQS hands back a record whose first receive failed. */
export function redeliver(
  flow: FlowHarness,
  first: Delivery,
  route: { functionName: string; detailType: InboundDetailType; detail: Record<string, unknown> },
): Promise<Delivery> {
  return deliver(flow, route.functionName, route.detailType, route.detail, {
    id: first.eventId,
    receiveCount: 2,
  });
}

export const SEEDED_LOCATIONS = 2;
export const SEEDED_AREAS = 2;

export function createdLocations(records: InstallRecords) {
  return (records['Location'] ?? []).slice(SEEDED_LOCATIONS);
}

export function createdAreas(records: InstallRecords) {
  return (records['Area'] ?? []).slice(SEEDED_AREAS);
}

export function agreementsOf(records: InstallRecords, employeeId: number) {
  return (records['EmployeeAgreement'] ?? []).filter((agreement) => agreement['EmployeeId'] === employeeId);
}

export function locationCreated(accountId: string, overrides: Record<string, unknown> = {}) {
  return {
    accountId,
    locationRef: 'loc-dock',
    name: `Dock Kiosk ${accountId}`,
    code: 'DK',
    isWorkplace: true,
    areas: [{ name: 'Counter' }, { name: 'Terrace' }],
    ...overrides,
  };
}
