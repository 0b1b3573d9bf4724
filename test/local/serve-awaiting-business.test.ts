import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_ATTEMPTS,
  MAX_WAIT_SECONDS,
  retryDelaySeconds,
} from '#functions/runtime/retry-schedule.ts';
import { DEFAULT_TIME_SCALE } from '#local/aws/clock.ts';
import {
  type DeadLetterView,
  type LocalResources,
  type OutboundEvent,
  SANDBOX_TOKEN,
} from '#local/runtime.ts';
import type { RunningCommand } from './child-process.ts';
import {
  eventually as eventuallyWithin,
  getJson,
  type ServeEndpoints,
  sampleEntry,
  startServe,
} from './samples.ts';

/**
 * Issue 25, point 3, as a partner meets it: `npm start -- --serve --no-token` in its own process,
 * driven with the real EventBridge and Secrets Manager clients. An EmployeeChanged published before
 * its account's AccountCreated, while the secret holds no valid token, waits for the business
 * without using its attempts: the token is put only after its whole retry budget (5 counted
 * attempts, 1 + 2 + 4 + 8 minutes apart) would have run out on the runtime's clock, and the event
 * still applies once the business exists, with no RETRIES_EXHAUSTED and nothing dead-lettered.
 */

/** The runtime's scale of AWS waiting times, given explicitly so the test can read its clock. */
const TIME_SCALE = DEFAULT_TIME_SCALE;

/** How long a counted record keeps trying: the pauses between its attempts, in AWS seconds. */
const RETRY_BUDGET_SECONDS = Array.from({ length: DEFAULT_MAX_ATTEMPTS - 1 }, (_, index) =>
  retryDelaySeconds(index + 1),
).reduce((sum, seconds) => sum + seconds, 0);

/**
 * The token is put once the refused signups span this much of the runtime's clock: the retry
 * budget, plus the longest wait, for the EmployeeChanged's first try may come a little after the
 * AccountCreated's (the runtime does not keep publish order across routes).
 */
const SPAN_BEFORE_TOKEN_SECONDS = RETRY_BUDGET_SECONDS + MAX_WAIT_SECONDS;

/** This file's waits span long stretches of the runtime's clock. */
const eventually = <T>(find: () => Promise<T | undefined>, what: string, timeoutMs = 60_000) =>
  eventuallyWithin(find, what, timeoutMs);

describe('npm start -- --serve --no-token: an event published before its AccountCreated, the token set late', () => {
  let serve: RunningCommand;
  let endpoints: ServeEndpoints;
  let resources: LocalResources;
  const credentials = { accessKeyId: 'AKIATESTSERVE', secretAccessKey: 'test' };

  beforeAll(async () => {
    ({ serve, endpoints } = await startServe(['--no-token', '--time-scale', String(TIME_SCALE)]));
    resources = await getJson<LocalResources>(`${endpoints.events}/_local/resources`);
  }, 90_000);

  afterAll(async () => {
    // SIGTERM: tsx passes it on to the runtime it started (a SIGKILL would leave that one running).
    if (serve && serve.child.exitCode === null) {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });

  it('waits past the whole retry budget without counting, and applies it once the business exists', async () => {
    // Prepare
    const secrets = new SecretsManagerClient({
      region: 'us-east-1',
      endpoint: endpoints.events,
      credentials,
    });
    const eventBridge = new EventBridgeClient({
      region: 'us-east-1',
      endpoint: endpoints.events,
      credentials,
    });
    const outbound = () => getJson<OutboundEvent[]>(`${endpoints.events}/_local/outbound`);
    const deadLetters = () => getJson<DeadLetterView[]>(`${endpoints.events}/_local/dlq`);
    const publish = async (entry: PutEventsRequestEntry): Promise<string> => {
      const answer = await eventBridge.send(new PutEventsCommand({ Entries: [entry] }));
      const eventId = answer.Entries?.[0]?.EventId;
      if (!eventId) throw new Error(`PutEvents refused the entry: ${JSON.stringify(answer.Entries)}`);
      return eventId;
    };
    const accountId = 'acct-waits-for-business';
    const refusedSignups = async () =>
      (
        await getJson<Array<{ path: string; status: number; wallMs: number }>>(
          `${endpoints.sandbox}/_sandbox/requests`,
        )
      ).filter((request) => request.status === 401 && request.path.endsWith('/signup'));
    try {
      // A secret that holds no valid token: every signup is refused 401.
      await secrets.send(
        new PutSecretValueCommand({ SecretId: resources.tokenSecretName, SecretString: 'not-the-token' }),
      );

      // Act: the EmployeeChanged first, then its AccountCreated.
      const employeeEventId = await publish(sampleEntry('EmployeeChanged', { accountId }));
      const createdEventId = await publish(
        sampleEntry('AccountCreated', {
          accountId,
          owner: { firstName: 'Wade', lastName: 'Later', email: 'waits-for-business@example.com' },
        }),
      );
      // Until the refused signups span the retry budget and the longest wait on the runtime's clock
      // (a counted EmployeeChanged would have given up by then).
      const refused = await eventually(
        async () => {
          const found = await refusedSignups();
          const first = found[0];
          const last = found.at(-1);
          if (first === undefined || last === undefined) return undefined;
          const spanSeconds = (last.wallMs - first.wallMs) / 1000 / TIME_SCALE;
          return spanSeconds >= SPAN_BEFORE_TOKEN_SECONDS ? { count: found.length, spanSeconds } : undefined;
        },
        `refused signups spanning ${SPAN_BEFORE_TOKEN_SECONDS} s of the runtime's clock\n${serve.output().slice(-2000)}`,
      );
      const toldWhileWaiting = (await outbound()).filter((event) => event.detail['accountId'] === accountId);
      const parkedWhileWaiting = (await deadLetters()).filter((entry) => entry.body.includes(accountId));
      await secrets.send(
        new PutSecretValueCommand({ SecretId: resources.tokenSecretName, SecretString: SANDBOX_TOKEN }),
      );
      // Its answer: EmployeeSynced once the business exists (a SyncFailed would end the wait too).
      const answer = await eventually(
        async () =>
          (await outbound()).find(
            (event) =>
              event.detail['causationId'] === employeeEventId ||
              event.detail['sourceEventId'] === employeeEventId,
          ),
        `the EmployeeChanged's answer once the business exists\n${serve.output().slice(-2000)}`,
      );

      // Assess: nothing told or parked while waiting; then provisioned once and synced, nothing failed.
      expect(refused.spanSeconds).toBeGreaterThan(RETRY_BUDGET_SECONDS);
      expect(toldWhileWaiting).toEqual([]);
      expect(answer['detail-type']).toBe('EmployeeSynced');
      expect(parkedWhileWaiting).toEqual([]);
      // (Not asserted in this order: the business is recorded just before BusinessProvisioned is
      // published, so the waiting event may apply in between.)
      const events = (await outbound()).filter((event) => event.detail['accountId'] === accountId);
      expect(events.map((event) => [event['detail-type'], event.detail['causationId']]).sort()).toEqual([
        ['BusinessProvisioned', createdEventId],
        ['EmployeeSynced', employeeEventId],
      ]);
      expect(answer).toMatchObject({
        'detail-type': 'EmployeeSynced',
        detail: { accountId, causationId: employeeEventId },
      });
      expect((await deadLetters()).filter((entry) => entry.body.includes(accountId))).toEqual([]);
      // Every AWS call of the run was one the template's IAM allows (local/iam/).
      expect(await getJson<unknown[]>(`${endpoints.events}/_local/denied`)).toEqual([]);
    } finally {
      secrets.destroy();
      eventBridge.destroy();
    }
  }, 120_000);
});
