import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  OutcomeUnknownError,
  ServiceUnavailableError,
  SignupOutcomeLostError,
  TimeoutError,
} from '#functions/domain/errors.ts';
import { serviceAssumptionsSchema, serviceClientAssumptions } from '#functions/service/assumptions.ts';
import type { RequestInfo } from '#functions/service/http.ts';
import { type Harness, startHarness, uniqueSignup } from './sandbox-harness.ts';

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});

afterEach(async () => {
  await harness.control('DELETE', '/_sandbox/faults');
});

afterAll(async () => {
  await harness.close();
});

/** A timer may fire a millisecond or two before Date.now() shows its delay has passed. */
const TIMER_SLACK_MS = 5;

function injectOnce(kind: string, pathPrefix: string) {
  return harness.control('POST', '/_sandbox/faults', {
    rate: 1,
    kinds: [kind],
    seed: 7,
    count: 1,
    pathPrefix,
  });
}

async function businessesWith(externalId: string) {
  const all = await harness.control<Array<{ externalId: string; hostname: string }>>(
    'GET',
    '/_sandbox/businesses',
  );
  return all.filter((business) => business.externalId === externalId);
}

function observed() {
  const delays: number[] = [];
  const attempts: RequestInfo[] = [];
  const client = harness.client({
    timeoutMs: 300,
    sleep: async (ms) => {
      delays.push(ms);
    },
    onRequest: (info) => attempts.push(info),
  });
  return { client, delays, attempts };
}

describe('429 and 5xx faults', () => {
  it('waits the Retry-After of a 429 and then succeeds', async () => {
    const { client, delays, attempts } = observed();
    const { hostname } = await client.provisioning.signup(uniqueSignup('rl'));
    await injectOnce('429', '/connect');

    const status = await client.provisioning.subscriptionStatus(hostname);

    expect(status.hostname).toBe(hostname);
    expect(delays).toEqual([1000]);
    expect(attempts.slice(-2).map((attempt) => attempt.status)).toEqual([429, 200]);
  });

  it('pauses the shared budget on a 429 with Retry-After: another client (another Lambda) waits it out too', async () => {
    // Prepare: a client that gives up at the first answer meets an injected 429 (Retry-After: 1).
    const { client } = observed();
    const { hostname } = await client.provisioning.signup(uniqueSignup('pause'));
    const refused = harness.client({ retry: { maxAttempts: 1 } });
    await injectOnce('429', '/connect');
    const error = await refused.provisioning.subscriptionStatus(hostname).catch((caught: unknown) => caught);
    const waitsBefore = harness.budget.waitsMs.length;

    // Act: the other client calls the same root at once.
    const status = await client.provisioning.subscriptionStatus(hostname);

    // Assess: its request waited on the budget for the rest of the pause before it was sent.
    expect(error).toMatchObject({ status: 429 });
    expect(status.hostname).toBe(hostname);
    expect(harness.budget.waitsMs.slice(waitsBefore)).toEqual([expect.any(Number)]);
    expect(harness.budget.waitsMs.at(-1)).toBeGreaterThan(500);
    expect(harness.budget.waitsMs.at(-1)).toBeLessThanOrEqual(1000);
    // On the sandbox's own clock: the 429 was answered, then the other client's request was not
    // answered before the Retry-After second had run out (the client paused when it got the 429,
    // later still). A busy machine only lengthens the gap.
    const [refusedAnswer, laterAnswer] = (await harness.requests()).slice(-2);
    expect(refusedAnswer).toMatchObject({ status: 429, cause: '429' });
    expect(laterAnswer).toMatchObject({ status: 200, path: refusedAnswer?.path });
    expect((laterAnswer?.wallMs ?? 0) - (refusedAnswer?.wallMs ?? 0)).toBeGreaterThanOrEqual(
      1000 - TIMER_SLACK_MS,
    );
  });

  it('retries an idempotent install call after a 500', async () => {
    const { client, attempts } = observed();
    const { hostname } = await client.provisioning.signup(uniqueSignup('five'));
    await injectOnce('500', `/installs/${hostname}`);

    const countries = await client.install(hostname).findCountries({ code: 'US' });

    expect(countries.map((country) => country.Country)).toEqual(['United States']);
    expect(attempts.slice(-2).map((attempt) => attempt.status)).toEqual([500, 200]);
    expect(client.stats.retries).toBe(1);
  });

  it('gives up with a retryable error when every attempt fails', async () => {
    const { client } = observed();
    const { hostname } = await client.provisioning.signup(uniqueSignup('down'));
    await harness.control('POST', '/_sandbox/faults', {
      rate: 1,
      kinds: ['500'],
      seed: 1,
      pathPrefix: '/installs',
    });

    const error = await client
      .install(hostname)
      .listAwards()
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ status: 500, serviceCode: 'INTERNAL_ERROR' });
  });
});

describe('timeouts', () => {
  it('bounds every attempt by the per-request timeout', async () => {
    const { client, attempts } = observed();
    const { hostname } = await client.provisioning.signup(uniqueSignup('slow'));
    await harness.control('POST', '/_sandbox/faults', {
      rate: 1,
      kinds: ['timeout'],
      seed: 1,
      pathPrefix: '/installs',
    });
    const started = Date.now();

    const error = await client
      .install(hostname)
      .listAwards()
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(TimeoutError);
    expect(attempts.filter((attempt) => attempt.errorCode === 'TIMEOUT')).toHaveLength(3);
    expect(Date.now() - started).toBeLessThan(3 * 300 + 700);
  });

  it('retries an idempotent call once the timeout fault has passed', async () => {
    const { client } = observed();
    const { hostname } = await client.provisioning.signup(uniqueSignup('slow-once'));
    await injectOnce('timeout', `/installs/${hostname}`);

    const awards = await client.install(hostname).listAwards();

    expect(awards.length).toBeGreaterThan(0);
  });
});

describe('signup after an ambiguous failure', () => {
  it('reports a committed signup whose answer was dropped as SignupOutcomeLostError', async () => {
    const { client, attempts } = observed();
    const request = uniqueSignup('dropped');
    await injectOnce('drop-after-commit', '/connect');

    const error = await client.provisioning.signup(request).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(SignupOutcomeLostError);
    expect(error).toMatchObject({ code: 'SIGNUP_COMMITTED_UNCONFIRMED', status: 409 });
    expect(await businessesWith(request.businessData.externalId)).toHaveLength(1);
    expect(attempts).toHaveLength(2);
  });

  it('takes the duplicate codes the deployment names: others are plain refusals, and the business is not claimed', async () => {
    // Prepare: a deployment that believes the service answers duplicates with another code.
    const assumptions = serviceClientAssumptions(
      serviceAssumptionsSchema.parse({
        signupDuplicateCodes: ['DUPLICATE_PARTNER_REFERENCE'],
        signupDuplicateMessagePatterns: [],
      }),
    );
    const client = harness.client({ timeoutMs: 300, sleep: async () => undefined, ...assumptions });
    const request = uniqueSignup('other-codes');
    await injectOnce('drop-after-commit', '/connect');

    // Act
    const error = await client.provisioning.signup(request).catch((caught: unknown) => caught);

    // Assess: the sandbox answers EXTERNAL_ID_NOT_UNIQUE/EMAIL_ALREADY_EXISTS, not a configured code.
    expect(error).not.toBeInstanceOf(SignupOutcomeLostError);
    expect(error).toMatchObject({ code: 'SERVICE_REJECTED' });
    expect(await businessesWith(request.businessData.externalId)).toHaveLength(1);
  });

  it('returns the business from the single follow-up when the first attempt timed out uncommitted', async () => {
    const { client, attempts } = observed();
    const request = uniqueSignup('timed-out');
    await injectOnce('timeout', '/connect');

    const business = await client.provisioning.signup(request);

    const stored = await businessesWith(request.businessData.externalId);
    expect(stored.map((entry) => entry.hostname)).toEqual([business.hostname]);
    expect(attempts.map((attempt) => attempt.errorCode ?? attempt.status)).toEqual(['TIMEOUT', 200]);
  });

  it('makes one follow-up after a 500 and no more', async () => {
    const { client, attempts } = observed();
    await harness.control('POST', '/_sandbox/faults', {
      rate: 1,
      kinds: ['500'],
      seed: 1,
      pathPrefix: '/connect',
    });

    const error = await client.provisioning
      .signup(uniqueSignup('five-hundred'))
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(attempts.map((attempt) => attempt.status)).toEqual([500, 500]);
  });

  it('reads a duplicate refusal of the first attempt as committed only when an earlier attempt may have committed', async () => {
    // Prepare: a signup that committed (an earlier invocation's, whose answer never came back).
    const { client, attempts } = observed();
    const request = uniqueSignup('resumed');
    await client.provisioning.signup(request);

    // Act: the same signup again, as a new attempt and as the resumption of the earlier one.
    const fresh = await client.provisioning.signup(request).catch((caught: unknown) => caught);
    const resumed = await client.provisioning
      .signup({ ...request, earlierAttemptMayHaveCommitted: true })
      .catch((caught: unknown) => caught);

    // Assess: one request each, no follow-up; only the resumption reads the refusal as "committed".
    expect(fresh).not.toBeInstanceOf(SignupOutcomeLostError);
    expect(fresh).toMatchObject({ code: 'SERVICE_REJECTED' });
    expect(resumed).toBeInstanceOf(SignupOutcomeLostError);
    expect(resumed).toMatchObject({ code: 'SIGNUP_COMMITTED_UNCONFIRMED', status: 409 });
    expect(attempts).toHaveLength(3);
    expect(await businessesWith(request.businessData.externalId)).toHaveLength(1);
  });
});

describe('other creates after an ambiguous failure', () => {
  it('does not repeat a change-plan whose answer was dropped', async () => {
    const { client, attempts } = observed();
    const { hostname } = await client.provisioning.signup(uniqueSignup('plan-drop'));
    await injectOnce('drop-after-commit', '/connect');
    const before = attempts.length;

    const error = await client.provisioning
      .upgrade(hostname, { address1: '1 Main St' })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(attempts.length - before).toBe(1);
    expect((await client.provisioning.subscriptionStatus(hostname)).edition).toBe(
      'SUBSCRIPTION_PAID_PRO_PREMIUM',
    );
  });

  it('does not repeat a location create whose answer was dropped', async () => {
    const { client } = observed();
    const { hostname } = await client.provisioning.signup(uniqueSignup('loc-drop'));
    await injectOnce('drop-after-commit', `/installs/${hostname}`);

    const error = await client
      .install(hostname)
      .createLocation({ CompanyName: 'Once Only', IsWorkplace: 1 })
      .catch((caught: unknown) => caught);

    const tables = await harness.control<{ Location: Array<{ CompanyName: string }> }>(
      'GET',
      `/_sandbox/installs/${hostname}`,
    );
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(tables.Location.filter((location) => location.CompanyName === 'Once Only')).toHaveLength(1);
  });

  it('repeats an idempotent metric write whose answer was dropped', async () => {
    const { client } = observed();
    const { hostname } = await client.provisioning.signup(uniqueSignup('metric-drop'));
    await injectOnce('drop-after-commit', `/installs/${hostname}`);

    const saved = await client
      .install(hostname)
      .saveMetrics([{ timestamp: 1767571200, location: 1, type: 'budget_wage', value: 500 }]);

    expect(saved).toHaveLength(1);
    expect(saved[0]?.value).toBe(500);
  });
});
