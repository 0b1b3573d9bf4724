import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { BenchEnvironment } from './environment.ts';
import { accountCreated, busEvent, type FlowName, flowEvent, type InboundEntry } from './workload.ts';

/**
 * Issue #9 §5: events per second through the local runtime (PutEvents → rules → FIFO queues →
 * handlers with the route table's concurrency), with `accounts` accounts in parallel. Accounts are
 * provisioned in a first wave (their other events need the business), then every account sends
 * one event of each follow-up flow.
 */

export interface Throughput {
  readonly accounts: number;
  readonly events: number;
  readonly elapsedMs: number;
  readonly eventsPerSecond: number;
  readonly outbound: number;
  readonly syncFailed: number;
  readonly deadLetters: number;
}

async function publish(client: EventBridgeClient, busName: string, entries: readonly InboundEntry[]) {
  for (let start = 0; start < entries.length; start += 10) {
    const chunk = entries.slice(start, start + 10);
    const { FailedEntryCount } = await client.send(
      new PutEventsCommand({
        Entries: chunk.map((entry) => {
          const event = busEvent(entry);
          return {
            EventBusName: busName,
            Source: event.source,
            DetailType: event['detail-type'],
            Detail: JSON.stringify(event.detail),
          };
        }),
      }),
    );
    if (FailedEntryCount) throw new Error(`${FailedEntryCount} inbound entries refused`);
  }
}

export async function measureThroughput(
  environment: BenchEnvironment,
  { accounts, followUps }: { accounts: number; followUps: readonly FlowName[] },
): Promise<Throughput> {
  const { runtime } = environment;
  const client = new EventBridgeClient({ endpoint: runtime.eventsEndpoint, region: runtime.region });
  const outboundBefore = runtime.outbound().length;
  const deadBefore = runtime.dlq().length;
  const started = performance.now();

  const signups = Array.from({ length: accounts }, () => accountCreated());
  await publish(client, runtime.busName, signups);
  await runtime.waitForIdle();
  const followUpEvents = signups.flatMap(({ detail: { accountId } }) =>
    followUps.map((flow) => flowEvent(flow, accountId, 0)),
  );
  await publish(client, runtime.busName, followUpEvents);
  await runtime.waitForIdle();

  const elapsedMs = performance.now() - started;
  client.destroy();
  const outbound = runtime.outbound().slice(outboundBefore);
  const events = signups.length + followUpEvents.length;
  return {
    accounts,
    events,
    elapsedMs,
    eventsPerSecond: (events * 1000) / elapsedMs,
    outbound: outbound.length,
    syncFailed: outbound.filter((event) => event['detail-type'] === 'SyncFailed').length,
    deadLetters: runtime.dlq().length - deadBefore,
  };
}
