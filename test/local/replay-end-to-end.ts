import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundContracts } from '#functions/contracts/registry.ts';
import type { BatchActivity } from '#local/aws/lambda.ts';
import type { PipeActivity } from '#local/aws/pipe.ts';
import { type LocalRuntime, type RuntimeActivity, startLocalRuntime } from '#local/runtime.ts';
import { parseReplayArgs, type ReplayOutcome, replay } from '#scripts/replay.ts';
import { sampleEntry } from './samples.ts';

/**
 * `npm run replay` against the connector run from its synthesized template: real handlers, the
 * real EventBridge client against the runtime's endpoint, the tool's own `replay()`. Shared by two
 * test files, one per answer to what AWS does not document (does a replayed event keep its id?):
 * handlers read their environment once, when they load, so each answer needs a runtime of its own,
 * and each of the two files starts one (one at a time per process: local/runtime.ts).
 *
 * With kept ids, a replayed event has the deduplication id of its original on the route's FIFO
 * queue (the pipe's MessageDeduplicationId is the event id), so within SQS's 5-minute
 * deduplication interval the queue drops it ("Exactly-once processing in Amazon SQS"). AWS
 * recommends replaying events at least 10 minutes old anyway; these tests move the local AWS
 * clock past the interval (`now`) instead of waiting, except where they show the drop itself.
 */

const FIFO_DEDUPLICATION_INTERVAL_MS = 5 * 60_000;

/**
 * The start of the next second, once it has come: an event's `time` has whole seconds, so a window
 * starting there holds none of the events an earlier test published.
 */
async function windowStart(): Promise<Date> {
  const next = Math.floor(Date.now() / 1000) * 1000 + 1000;
  await new Promise((resolve) => setTimeout(resolve, next - Date.now()));
  while (Date.now() < next) await new Promise((resolve) => setTimeout(resolve, 2));
  return new Date(next);
}

/** Now, once it is after `from` (the window must not be empty). */
async function windowEnd(from: Date): Promise<Date> {
  while (Date.now() <= from.getTime()) await new Promise((resolve) => setTimeout(resolve, 2));
  return new Date();
}

export function describeReplayEndToEnd(replayKeepsIds: boolean): void {
  describe(`npm run replay on the local connector (a replayed event ${replayKeepsIds ? 'keeps its id' : 'gets a new id'})`, () => {
    let runtime: LocalRuntime;
    let eventBridge: EventBridgeClient;
    let skewMs = 0;
    const activity: RuntimeActivity[] = [];

    const publish = async (entry: PutEventsRequestEntry): Promise<string> => {
      const answer = await eventBridge.send(new PutEventsCommand({ Entries: [entry] }));
      const eventId = answer.Entries?.[0]?.EventId;
      if (!eventId) throw new Error(`PutEvents refused the entry: ${JSON.stringify(answer.Entries)}`);
      return eventId;
    };
    const businesses = async () => (await fetch(`${runtime.sandboxUrl}/_sandbox/businesses`)).json();
    const resultOf = (eventId: string) =>
      runtime
        .outbound()
        .filter(
          (event) => event.detail['causationId'] === eventId || event.detail['sourceEventId'] === eventId,
        );
    const runReplay = async (from: Date, to: Date, extra: string[] = []) => {
      const lines: string[] = [];
      const outcome = await replay(
        eventBridge,
        {
          ...parseReplayArgs(['--from', from.toISOString(), '--to', to.toISOString(), ...extra]),
          inboundSource: runtime.inboundSource,
        },
        (line) => lines.push(line),
        { pollIntervalMs: 10 },
      );
      await runtime.waitForIdle();
      return {
        outcome,
        lines,
        replayed: runtime.replays().find((item) => item.name === replayNameOf(outcome)),
      };
    };
    /** Past the FIFO deduplication interval of the originals, as a replay 10 minutes later would be. */
    const laterAsAwsRecommends = () => {
      if (replayKeepsIds) skewMs += FIFO_DEDUPLICATION_INTERVAL_MS + 60_000;
    };

    beforeAll(async () => {
      runtime = await startLocalRuntime({
        logLevel: 'SILENT',
        // Quiet: the handlers' metrics are not what these tests look at.
        extraEnvironment: { POWERTOOLS_METRICS_DISABLED: 'true' },
        replayKeepsIds,
        now: () => Date.now() + skewMs,
        onActivity: (entry) => activity.push(entry),
      });
      eventBridge = new EventBridgeClient({
        region: runtime.region,
        endpoint: runtime.eventsEndpoint,
        credentials: { accessKeyId: 'AKIATESTREPLAY', secretAccessKey: 'test' },
      });
    }, 120_000);

    afterAll(async () => {
      eventBridge?.destroy();
      await runtime?.close();
    });

    it('finds the archive and the route rules of the template, and starts nothing on a dry run', async () => {
      // Act
      const lines: string[] = [];
      const now = new Date();
      const outcome = await replay(
        eventBridge,
        {
          ...parseReplayArgs([
            '--from',
            new Date(now.getTime() - 3_600_000).toISOString(),
            '--to',
            now.toISOString(),
            '--dry-run',
          ]),
          inboundSource: runtime.inboundSource,
        },
        (line) => lines.push(line),
      );

      // Assess
      expect(outcome.kind).toBe('dry-run');
      expect(outcome.plan.archiveName).toBe(runtime.archives()[0]?.name);
      expect(outcome.plan.busName).toBe(runtime.busName);
      expect(outcome.plan.rules.map((rule) => rule.detailType).sort()).toEqual(
        Object.keys(inboundContracts).sort(),
      );
      expect(outcome.plan.rules.some((rule) => /Refusal/.test(rule.name))).toBe(false);
      expect(lines.join('\n')).toMatch(/dry run: would replay events of \[/);
      expect(lines.join('\n')).toContain(`archive ${runtime.archives()[0]?.name}`);
      expect(runtime.replays()).toEqual([]);
    });

    it('changes nothing when the whole window is replayed: no outbound event, the same businesses', async () => {
      // Prepare: events that were applied, each waited for.
      const from = await windowStart();
      const published: string[] = [];
      for (const [detailType, result] of [
        ['AccountCreated', 'BusinessProvisioned'],
        ['PlanChosen', 'PlanChanged'],
        ['SubscriptionStatusRequested', 'SubscriptionStatus'],
      ] as const) {
        const eventId = await publish(sampleEntry(detailType));
        await runtime.waitForIdle();
        expect(resultOf(eventId).map((event) => event['detail-type'])).toEqual([result]);
        published.push(eventId);
      }
      const to = await windowEnd(from);
      const outboundBefore = runtime.outbound();
      const businessesBefore = await businesses();
      const archivedBefore = runtime.archives()[0]?.eventCount;
      laterAsAwsRecommends();
      const activityBefore = activity.length;

      // Act
      const { outcome, lines, replayed } = await runReplay(from, to);

      // Assess: every event went back to its route, which acknowledged it without running it again.
      expect(outcome).toMatchObject({ kind: 'finished', state: 'COMPLETED' });
      expect(lines.join('\n')).toContain('warning: --to is less than 10 minutes ago');
      expect(replayed?.sent.map((event) => event['detail-type'])).toEqual([
        'AccountCreated',
        'PlanChosen',
        'SubscriptionStatusRequested',
      ]);
      expect(replayed?.sent.every((event) => event['replay-name'] === replayed.name)).toBe(true);
      const ids = replayed?.sent.map((event) => event.id) ?? [];
      if (replayKeepsIds) expect(ids).toEqual(published);
      else expect(ids.some((id) => published.includes(id))).toBe(false);
      const batches = activity
        .slice(activityBefore)
        .filter((entry): entry is BatchActivity => entry.kind === 'batch');
      expect(batches.flatMap((batch) => batch.detailTypes).sort()).toEqual([
        'AccountCreated',
        'PlanChosen',
        'SubscriptionStatusRequested',
      ]);
      expect(batches.every((batch) => batch.failed === 0)).toBe(true);
      expect(runtime.outbound()).toEqual(outboundBefore);
      expect(await businesses()).toEqual(businessesBefore);
      expect(runtime.archives()[0]?.eventCount).toBe(archivedBefore);
    });

    it(
      replayKeepsIds
        ? 'a replay right after the events: the route FIFO queue drops each as a duplicate of its original'
        : 'a replay right after the events: the route handler acknowledges each, applied before',
      async () => {
        // Prepare
        const from = await windowStart();
        const eventId = await publish(sampleEntry('SubscriptionStatusRequested'));
        await runtime.waitForIdle();
        const to = await windowEnd(from);
        const outboundBefore = runtime.outbound();
        const activityBefore = activity.length;

        // Act
        const { outcome } = await runReplay(from, to, ['--detail-type', 'SubscriptionStatusRequested']);

        // Assess
        expect(outcome).toMatchObject({ kind: 'finished', state: 'COMPLETED' });
        const after = activity.slice(activityBefore);
        const forwarded = after.filter(
          (entry): entry is Extract<PipeActivity, { kind: 'pipe-forwarded' }> =>
            entry.kind === 'pipe-forwarded',
        );
        const batches = after.filter((entry): entry is BatchActivity => entry.kind === 'batch');
        // Forwarded once, or more when the intake queue delivered a copy of it again
        // (local/aws/delivery-model.ts): the route FIFO queue takes it once at most, by its deduplication id.
        expect(forwarded.length).toBeGreaterThan(0);
        expect(forwarded.filter((entry) => !entry.duplicate)).toHaveLength(replayKeepsIds ? 0 : 1);
        expect(batches.length).toBe(replayKeepsIds ? 0 : 1);
        expect(resultOf(eventId)).toHaveLength(1);
        expect(runtime.outbound()).toEqual(outboundBefore);
      },
    );

    it('applies, after the fix, an event that gave up before it, and repeats nothing else', async () => {
      // Prepare: an employee change for an account not provisioned yet gives up after its attempts...
      const ghost = `acct-replay-${replayKeepsIds ? 'kept' : 'new'}`;
      const from = await windowStart();
      const employeeEventId = await publish(sampleEntry('EmployeeChanged', { accountId: ghost }));
      await runtime.waitForIdle();
      expect(resultOf(employeeEventId).map((event) => [event['detail-type'], event.detail['code']])).toEqual([
        ['SyncFailed', 'RETRIES_EXHAUSTED'],
      ]);
      // ... then the fix: the account is provisioned.
      const accountEventId = await publish(
        sampleEntry('AccountCreated', {
          accountId: ghost,
          owner: { firstName: 'Rhea', lastName: 'Play', email: `${ghost}@example.com` },
        }),
      );
      await runtime.waitForIdle();
      expect(resultOf(accountEventId).map((event) => event['detail-type'])).toEqual(['BusinessProvisioned']);
      const to = await windowEnd(from);
      const outboundBefore = runtime.outbound().length;
      laterAsAwsRecommends();
      const activityBefore = activity.length;

      // Act
      const { outcome, replayed } = await runReplay(from, to, ['--detail-type', 'EmployeeChanged']);

      // Assess: both events of the window went to the bus, only the employee change to its rule; it
      // is applied now, and the account is not provisioned again.
      expect(outcome).toMatchObject({ kind: 'finished', state: 'COMPLETED' });
      expect(outcome.plan.rules.map((rule) => rule.detailType)).toEqual(['EmployeeChanged']);
      expect(replayed?.sent.map((event) => event['detail-type'])).toEqual([
        'EmployeeChanged',
        'AccountCreated',
      ]);
      const batches = activity
        .slice(activityBefore)
        .filter((entry): entry is BatchActivity => entry.kind === 'batch');
      expect(batches.flatMap((batch) => batch.detailTypes)).toEqual(['EmployeeChanged']);
      const added = runtime.outbound().slice(outboundBefore);
      expect(added.map((event) => [event['detail-type'], event.detail['accountId']])).toEqual([
        ['EmployeeSynced', ghost],
      ]);
      const replayedEmployeeChange = replayed?.sent.find(
        (event) => event['detail-type'] === 'EmployeeChanged',
      );
      expect(added[0]?.detail['causationId']).toBe(replayedEmployeeChange?.id);
      if (replayKeepsIds) expect(replayedEmployeeChange?.id).toBe(employeeEventId);
    });
  });
}

function replayNameOf(outcome: ReplayOutcome): string | undefined {
  return outcome.kind === 'dry-run' ? undefined : outcome.replayName;
}
