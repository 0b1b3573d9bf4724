import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse } from 'aws-lambda';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatPath } from '#functions/contracts/issues.ts';
import {
  type InboundDetailType,
  inboundContracts,
  inboundDetailTypes,
} from '#functions/contracts/registry.ts';
import { inboundSamples } from '#functions/contracts/samples.ts';
import { routeFor } from '#functions/routes.ts';
import {
  type FlowHarness,
  inboundEvent,
  refusalBatch,
  refusalQueueArn,
  type SandboxRequest,
  sqsFifoBatch,
  startFlowHarness,
} from '#test/flows/support/harness.ts';

/**
 * Bad input, generated: valid samples of every inbound contract are mutated (a field dropped,
 * retyped or added), grown past EventBridge's 256 KB, replaced by bodies that are not JSON or
 * carry an unknown detail-type, and each is sent through the REAL handler of its route as an SQS
 * FIFO batch. The zod schema is the oracle: whatever it refuses must end in one SyncFailed naming
 * the field (or the reason), with no service call at all, and the handler must answer with a
 * batch response that acknowledges the record — never throw.
 */

let flow: FlowHarness;

beforeAll(async () => {
  flow = await startFlowHarness();
});
afterAll(() => flow?.close());

const serviceRequests = async () =>
  (await flow.sandbox<SandboxRequest[]>('GET', '/_sandbox/requests')).length;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = ReadonlyArray<string | number>;

/** Every path to a value inside a sample (objects and arrays walked), the root excluded. */
function pathsOf(value: Json, prefix: Path = []): Path[] {
  if (Array.isArray(value))
    return value.flatMap((item, index) => [[...prefix, index], ...pathsOf(item, [...prefix, index])]);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => [
      [...prefix, key],
      ...pathsOf(item, [...prefix, key]),
    ]);
  }
  return [];
}

function objectPathsOf(value: Json, prefix: Path = []): Path[] {
  const own = value !== null && typeof value === 'object' && !Array.isArray(value) ? [prefix] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => objectPathsOf(item, [...prefix, index]));
  if (value !== null && typeof value === 'object') {
    return [...own, ...Object.entries(value).flatMap(([key, item]) => objectPathsOf(item, [...prefix, key]))];
  }
  return own;
}

function parentAndKey(root: Json, path: Path): { parent: Json; key: string | number } {
  let parent: Json = root;
  for (const segment of path.slice(0, -1))
    parent = (parent as Record<string | number, Json>)[segment] as Json;
  return { parent, key: path[path.length - 1] as string | number };
}

type Mutation =
  | { kind: 'drop'; path: Path }
  | { kind: 'retype'; path: Path; value: Json }
  | { kind: 'add'; path: Path; key: string; value: Json };

function applyMutation(sample: Json, mutation: Mutation): Json {
  const copy = structuredClone(sample);
  if (mutation.kind === 'add') {
    let target: Json = copy;
    for (const segment of mutation.path) target = (target as Record<string | number, Json>)[segment] as Json;
    (target as Record<string, Json>)[mutation.key] = mutation.value;
    return copy;
  }
  const { parent, key } = parentAndKey(copy, mutation.path);
  if (Array.isArray(parent) && typeof key === 'number') {
    if (mutation.kind === 'drop') parent.splice(key, 1);
    else parent[key] = mutation.value;
  } else if (parent !== null && typeof parent === 'object') {
    const record = parent as Record<string, Json>;
    if (mutation.kind === 'drop') delete record[String(key)];
    else record[String(key)] = mutation.value;
  }
  return copy;
}

const otherTypedValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -5, max: 5 }),
  fc.double({ noNaN: false }),
  fc.string({ maxLength: 8 }),
  fc.constant<Json>([]),
  fc.constant<Json>({}),
);

function mutationOf(sample: Json): fc.Arbitrary<Mutation> {
  const paths = pathsOf(sample);
  const objects = objectPathsOf(sample);
  return fc.oneof(
    fc.constantFrom(...paths).map((path): Mutation => ({ kind: 'drop', path })),
    fc
      .record({ path: fc.constantFrom(...paths), value: otherTypedValue })
      .map((m): Mutation => ({ kind: 'retype', ...m })),
    fc
      .record({
        path: fc.constantFrom(...objects),
        key: fc.constantFrom('unexpectedField', 'hostname', 'installUrl', 'token', 'callbackUrl'),
        value: fc.constantFrom<Json>('evil.example.com', 'http://127.0.0.1:9/', 1, true),
      })
      .map((m): Mutation => ({ kind: 'add', ...m })),
  );
}

async function deliver(
  functionName: string,
  batch: ReturnType<typeof sqsFifoBatch>,
): Promise<SQSBatchResponse> {
  const response = await flow.invokeBatch(functionName, batch);
  // The handler answers with a partial batch response, whatever it was given.
  expect(response).toEqual({ batchItemFailures: expect.any(Array) });
  return response;
}

function syncFailedFor(sourceEventId: string) {
  return flow.published('SyncFailed').filter((event) => event.detail['sourceEventId'] === sourceEventId);
}

const detailTypeArbitrary = fc.constantFrom(...inboundDetailTypes);

describe('bad input through the real handlers', () => {
  it('refuses every schema-invalid mutation of a valid event with one SyncFailed naming the field, and calls nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        detailTypeArbitrary.chain((detailType) =>
          fc.tuple(fc.constant(detailType), mutationOf(inboundSamples[detailType] as Json)),
        ),
        async ([detailType, mutation]) => {
          // Prepare
          const accountId = `acct-bad-${randomUUID().slice(0, 8)}`;
          const detail = applyMutation(
            { ...(inboundSamples[detailType] as object), accountId } as Json,
            mutation,
          );
          const verdict = inboundContracts[detailType as InboundDetailType].schema.safeParse(detail);
          fc.pre(!verdict.success && mutation.path[0] !== 'accountId');
          const event = inboundEvent(detailType, detail as Record<string, unknown>);
          const before = await serviceRequests();

          // Act
          const response = await deliver(routeFor(detailType).functionName, sqsFifoBatch([event]));

          // Assess
          expect(response.batchItemFailures).toEqual([]);
          const failures = syncFailedFor(event.id);
          expect(failures).toHaveLength(1);
          expect(failures[0]?.detail).toMatchObject({ code: 'INVALID_DETAIL', accountId, detailType });
          const message = String(failures[0]?.detail['message']);
          const named = verdict.error?.issues
            .slice(0, 5)
            .some((issue) => message.includes(formatPath(['detail', ...issue.path])));
          expect(named, message).toBe(true);
          if (mutation.kind === 'add') expect(message).toContain(mutation.key);
          expect(await serviceRequests()).toBe(before);
        },
      ),
      { numRuns: 100, seed: 8 },
    );
  }, 60_000);

  it('refuses details over 256 KB with DETAIL_TOO_LARGE before reading them', async () => {
    await fc.assert(
      fc.asyncProperty(
        detailTypeArbitrary,
        fc.integer({ min: 256 * 1024 + 1, max: 400 * 1024 }),
        async (detailType, size) => {
          // Prepare
          const accountId = `acct-big-${randomUUID().slice(0, 8)}`;
          const detail = { ...(inboundSamples[detailType] as object), accountId, padding: 'x'.repeat(size) };
          const event = inboundEvent(detailType, detail);
          const before = await serviceRequests();

          // Act
          const response = await deliver(routeFor(detailType).functionName, sqsFifoBatch([event]));

          // Assess
          expect(response.batchItemFailures).toEqual([]);
          expect(syncFailedFor(event.id).map((failure) => failure.detail['code'])).toEqual([
            'DETAIL_TOO_LARGE',
          ]);
          expect(await serviceRequests()).toBe(before);
        },
      ),
      { numRuns: 5, seed: 9 },
    );
  }, 30_000);

  it('refuses SQS bodies that are not JSON with INVALID_JSON, falling back to the message group as account', async () => {
    const notJson = fc.string({ minLength: 0, maxLength: 200 }).filter((text) => {
      try {
        JSON.parse(text);
        return false;
      } catch {
        return true;
      }
    });
    await fc.assert(
      fc.asyncProperty(notJson, async (body) => {
        // Prepare
        const groupId = `acct-raw-${randomUUID().slice(0, 8)}`;
        const batch = sqsFifoBatch([{ rawBody: body, detailType: 'EmployeeChanged', groupId }]);
        const messageId = batch.Records[0]?.messageId ?? '';
        const before = await serviceRequests();

        // Act
        const response = await deliver('sync-employee', batch);

        // Assess
        expect(response.batchItemFailures).toEqual([]);
        const failures = syncFailedFor(messageId);
        expect(failures.map((failure) => failure.detail['code'])).toEqual(['INVALID_JSON']);
        expect(failures[0]?.detail['accountId']).toBe(groupId);
        expect(await serviceRequests()).toBe(before);
      }),
      { numRuns: 15, seed: 10 },
    );
  }, 30_000);

  it('leaves unknown detail-types to the refusal rule on any route, which answers UNKNOWN_DETAIL_TYPE once', async () => {
    const unknownType = fc
      .stringMatching(/^[A-Z][A-Za-z]{2,30}$/)
      .filter((name) => !inboundDetailTypes.includes(name as InboundDetailType));
    await fc.assert(
      fc.asyncProperty(unknownType, detailTypeArbitrary, async (detailType, route) => {
        // Prepare
        const accountId = `acct-unknown-${randomUUID().slice(0, 8)}`;
        const event = inboundEvent(detailType, { accountId, anything: true });
        const before = await serviceRequests();

        // Act: the route (had a rule sent it there) and the refusal function both see it.
        const response = await deliver(routeFor(route).functionName, sqsFifoBatch([event]));
        const refusal = await deliver('refuse-unroutable', refusalBatch([event], refusalQueueArn(flow)));

        // Assess
        expect(response.batchItemFailures).toEqual([]);
        expect(refusal.batchItemFailures).toEqual([]);
        expect(syncFailedFor(event.id).map((failure) => failure.detail['code'])).toEqual([
          'UNKNOWN_DETAIL_TYPE',
        ]);
        expect(await serviceRequests()).toBe(before);
      }),
      { numRuns: 10, seed: 11 },
    );
  }, 30_000);

  it('acknowledges an invalid record without holding back the valid records of other accounts in its batch', async () => {
    // Prepare
    const invalid = inboundEvent('SubscriptionStatusRequested', { accountId: 'acct-mixed-bad', extra: 1 });
    const otherAccount = inboundEvent('SubscriptionStatusRequested', {
      accountId: `acct-mixed-${randomUUID().slice(0, 8)}`,
    });

    const batch = sqsFifoBatch([invalid, otherAccount]);

    // Act
    const response = await deliver('subscription-status', batch);

    // Assess: the unprovisioned account's record is retried on its own; the invalid one is acknowledged.
    expect(syncFailedFor(invalid.id).map((failure) => failure.detail['code'])).toEqual(['INVALID_DETAIL']);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: batch.Records[1]?.messageId }]);
  });
});
