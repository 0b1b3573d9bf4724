import {
  type FlowHarness,
  inboundEvent,
  occurredNow,
  provisionAccount,
  runDriftWatch,
  US_BILLING_ADDRESS,
  uniqueAccountId,
} from '#test/flows/support/harness.ts';

/**
 * Shared by error-readings-default.test.ts and error-readings-configured.test.ts (one harness per
 * file: the watches read their settings once, when they load, so each configuration needs a runtime
 * of its own), and service-assumptions.test.ts (deletedBusiness).
 *
 * The spec shows no HTTP statuses and no error codes: how an answer of 401/403/404 without a code
 * is read, and how the drift watch recognises a business the service deleted, are service
 * assumptions (docs/internals.md "How HTTP statuses are read", "Open behaviours"). Each reading is
 * shown changing the outcome: once with the defaults, once with a deployment that reads otherwise.
 * The sandbox answers without a code through its `*-no-code` faults, and with another code
 * through its `notLinkedErrorCode` knob.
 */

const PARTNER_PATH = '/connect/v1/partner/acme';

/**
 * Every call to `operation` is answered `status` with `{"message": ...}` and no code, until
 * `clearFaults` (the hostname is in the body, so a fault cannot aim at one business).
 */
export function answerWithoutCode(flow: FlowHarness, operation: string, status: 403 | 404): Promise<unknown> {
  return flow.sandbox('POST', '/_sandbox/faults', {
    rate: 1,
    kinds: [`${status}-no-code`],
    pathPrefix: `${PARTNER_PATH}/${operation}`,
  });
}

export function clearFaults(flow: FlowHarness): Promise<unknown> {
  return flow.sandbox('DELETE', '/_sandbox/faults');
}

/** Runs `act` with every call to `operation` answered `status` without a code. */
export async function whileAnsweredWithoutCode<T>(
  flow: FlowHarness,
  operation: string,
  status: 403 | 404,
  act: () => Promise<T>,
): Promise<T> {
  await answerWithoutCode(flow, operation, status);
  try {
    return await act();
  } finally {
    await clearFaults(flow);
  }
}

/** A business the service deleted, due its drift check at the returned time. */
export async function deletedBusiness(
  flow: FlowHarness,
  label: string,
): Promise<{ accountId: string; hostname: string; now: string }> {
  const accountId = uniqueAccountId(label);
  const hostname = await provisionAccount(flow, accountId);
  await flow.sandbox('DELETE', `/_sandbox/businesses/${hostname}`);
  const { now } = await flow.sandbox<{ now: string }>('POST', '/_sandbox/clock', { advanceDays: 2 });
  return { accountId, hostname, now };
}

export function upgradeChosen(accountId: string) {
  return inboundEvent('PlanChosen', {
    accountId,
    plan: 'PREMIUM',
    billingAddress: US_BILLING_ADDRESS,
    occurredAt: occurredNow(),
  });
}

/** Runs the drift watch with the sandbox answering not-linked refusals with `code`, then puts the knob back. */
export async function driftWatchWithNotLinkedCode(flow: FlowHarness, code: string, now: string) {
  await flow.sandbox('POST', '/_sandbox/mode', { notLinkedErrorCode: code });
  try {
    return await runDriftWatch(flow, now);
  } finally {
    await flow.sandbox('POST', '/_sandbox/mode', { notLinkedErrorCode: null });
  }
}
