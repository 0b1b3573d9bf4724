import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inboundDetailTypes } from '#functions/contracts/registry.ts';
import type { DecodeFailureCode } from '#functions/contracts/route-decoder.ts';
import { inboundSamples } from '#functions/contracts/samples.ts';
import { decodeInboundMessage, decodeOptions, eventBody } from './support.ts';

const failureCodes: readonly DecodeFailureCode[] = [
  'INVALID_JSON',
  'INVALID_ENVELOPE',
  'UNKNOWN_DETAIL_TYPE',
  'MISSING_ACCOUNT_ID',
  'INVALID_ACCOUNT_ID',
  'UNEXPECTED_SOURCE',
  'INVALID_DETAIL',
  'DETAIL_TOO_LARGE',
];

function decodesToAnOutcome(body: string): ReturnType<typeof decodeInboundMessage> {
  const result = decodeInboundMessage(body, decodeOptions);
  expect(result.ok || failureCodes.includes(result.code)).toBe(true);
  if (!result.ok) expect(result.message.length).toBeGreaterThan(0);
  return result;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path to a value inside a JSON document, root excluded. */
function pathsOf(node: Json, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(node))
    return node.flatMap((child, i) => [[...prefix, i], ...pathsOf(child, [...prefix, i])]);
  if (node !== null && typeof node === 'object')
    return Object.entries(node).flatMap(([key, child]) => [
      [...prefix, key],
      ...pathsOf(child, [...prefix, key]),
    ]);
  return [];
}

function setAt(root: Json, path: (string | number)[], value: Json | undefined): void {
  const parent = path
    .slice(0, -1)
    .reduce<Json>((node, key) => (node as Record<string, Json>)[key] as Json, root);
  const key = path[path.length - 1]!;
  if (value === undefined) delete (parent as Record<string, Json>)[key];
  else (parent as Record<string, Json>)[key] = value;
}

/** A distinctive value, so a test can tell whether it leaked into a message. */
const markerValue = fc.stringMatching(/^[a-z]{6,10}$/).map((s) => `leak-${s}`);

const mutation = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), value: fc.jsonValue() as fc.Arbitrary<Json> }),
  fc.record({ kind: fc.constant('marker' as const), value: markerValue }),
  fc.record({ kind: fc.constant('delete' as const) }),
  fc.record({ kind: fc.constant('add' as const), key: fc.string({ maxLength: 12 }), value: markerValue }),
);

describe('decodeInboundMessage under arbitrary input', () => {
  it('never throws on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string(), (body) => void decodesToAnOutcome(body)),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary JSON documents', () => {
    fc.assert(
      fc.property(fc.json(), (body) => void decodesToAnOutcome(body)),
      { numRuns: 300 },
    );
  });

  it('never throws on envelopes with arbitrary details, and reports a named code', () => {
    fc.assert(
      fc.property(fc.constantFrom(...inboundDetailTypes), fc.jsonValue(), (detailType, detail) => {
        void decodesToAnOutcome(eventBody(detailType, detail));
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on mutated valid samples and never echoes an injected value', () => {
    fc.assert(
      fc.property(fc.constantFrom(...inboundDetailTypes), fc.nat(), mutation, (detailType, pick, change) => {
        // Prepare
        const detail = structuredClone(inboundSamples[detailType]) as Json;
        const paths = pathsOf(detail);
        const path = paths[pick % paths.length]!;
        if (change.kind === 'delete') setAt(detail, path, undefined);
        else if (change.kind === 'add') {
          const objects = [[], ...paths].filter((p) => {
            const node = p.reduce<Json>((n, k) => (n as Record<string, Json>)[k] as Json, detail);
            return node !== null && typeof node === 'object' && !Array.isArray(node);
          });
          const target = objects[pick % objects.length]!;
          if (target.length === 0) (detail as Record<string, Json>)[change.key] = change.value;
          else setAt(detail, [...target, change.key], change.value);
        } else setAt(detail, path, change.value);

        // Act
        const result = decodesToAnOutcome(eventBody(detailType, detail));

        // Assess
        if (!result.ok && change.kind === 'marker') expect(result.message).not.toContain(change.value);
        if (!result.ok && change.kind === 'add' && result.code === 'INVALID_DETAIL')
          expect(result.message).not.toContain(change.value);
      }),
      { numRuns: 1000 },
    );
  });

  it('accepts every sample whatever the event id and time', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...inboundDetailTypes),
        fc.uuid(),
        fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
        (detailType, id, time) => {
          const body = eventBody(detailType, inboundSamples[detailType], { id, time: time.toISOString() });

          const result = decodesToAnOutcome(body);

          expect(result).toMatchObject({ ok: true, event: { id, detailType } });
        },
      ),
      { numRuns: 200 },
    );
  });
});
