import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchEnvironment } from '#bench/environment.ts';
import { measureLatency } from '#bench/latency.ts';
import {
  listenOnLoopback,
  type RecordedRequest,
  RequestRecorder,
  readBody,
  type ServiceProxy,
} from '#bench/recorder.ts';
import { fromStateMet, TableState } from '#bench/table-state.ts';
import { FLOWS } from '#bench/workload.ts';
import type { RuntimeActivity } from '#local/runtime.ts';
import { useTestStore } from '#test/store/support.ts';

/**
 * A local EventBridge as fast as it can be: while it handles PutEvents it puts the inbound event on
 * the bus and, at once, the function's result event, and only then answers the partner's request.
 * The latency measurement must still pair the result with its event.
 */
describe('end-to-end latency: the result of an event put before PutEvents answers', () => {
  const listeners = new Set<(activity: RuntimeActivity) => void>();
  const emit = (activity: unknown) => {
    for (const listener of listeners) listener(activity as RuntimeActivity);
  };
  let events: ServiceProxy;
  const store = useTestStore();

  beforeAll(async () => {
    events = await listenOnLoopback(
      createServer((incoming, outgoing) => {
        void readBody(incoming).then((body) => {
          const [entry] = (JSON.parse(body.toString('utf8')) as { Entries: Record<string, string>[] })
            .Entries;
          const id = randomUUID();
          emit({
            kind: 'put',
            bus: 'connector',
            event: {
              id,
              source: entry?.['Source'],
              'detail-type': entry?.['DetailType'],
              detail: JSON.parse(entry?.['Detail'] ?? '{}'),
            },
            rules: [],
          });
          emit({
            kind: 'put',
            bus: 'connector',
            event: {
              id: randomUUID(),
              source: 'connector',
              'detail-type': 'Done',
              detail: { causationId: id },
            },
            rules: [],
          });
          outgoing.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
          outgoing.end(JSON.stringify({ FailedEntryCount: 0, Entries: [{ EventId: id }] }));
        });
      }),
    );
  });

  afterAll(async () => {
    await events.close();
  });

  it('pairs every result with its event by the id the bus reported, not the PutEvents answer', async () => {
    // Prepare
    const environment = {
      runtime: {
        region: 'us-east-1',
        eventsEndpoint: events.url,
        busName: 'connector',
        inboundSource: 'partner.inbound',
        functionNamed: (name: string) => ({ name }),
        waitForIdle: async () => undefined,
      },
      recorder: new RequestRecorder(),
      serviceProxy: { url: 'http://127.0.0.1:1' },
      provisionAccounts: async (count: number) => Array.from({ length: count }, () => randomUUID()),
      readStateMet: async () => {
        const table = await TableState.read(store.client, store.tableName);
        return {
          table,
          replay: (requests: readonly RecordedRequest[], replay: () => Promise<unknown>) =>
            fromStateMet(table, requests, replay),
        };
      },
      onActivity: (listener: (activity: RuntimeActivity) => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    } as unknown as BenchEnvironment;

    // Act
    const results = await measureLatency(environment, {
      eventsPerFlow: 1,
      runs: 3,
      warmup: 0,
      resultTimeoutMs: 5_000,
    });

    // Assess
    expect(
      results.map((flow) => ({ flow: flow.flow, failures: flow.failures, runs: flow.runOwnShareP50.length })),
    ).toEqual(FLOWS.map((flow) => ({ flow, failures: 0, runs: 3 })));
  });
});
