import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { queueRoutes, refusalFunction, scheduledFunctions } from '#functions/routes.ts';
import { parseStartArgs, StartUsageError } from '#local/cli-options.ts';
import { runCommand } from './child-process.ts';

/**
 * The one-shot commands a partner types: `npm start` (the scenario replay), its failure exit, and
 * `npm run invoke`. Each runs in its own process, as from a shell.
 */

describe('npm start options', () => {
  it('serves on the fixed ports 8787, 8000 and 4010 unless told otherwise', () => {
    // Act
    const options = parseStartArgs(['--serve']);

    // Assess
    expect(options.ports).toEqual({ sandbox: 8787, dynamo: 8000, events: 4010 });
    expect(options).toMatchObject({ token: true, timeScale: 0.001 });
  });

  it('replays the scenario on free ports', () => {
    // Act
    const options = parseStartArgs([]);

    // Assess
    expect(options).toMatchObject({ serve: false, ports: { sandbox: 0, dynamo: 0, events: 0 } });
  });

  it('takes other serve ports, 0 meaning a free one', () => {
    // Act
    const options = parseStartArgs(['--serve', '--events-port', '0', '--sandbox-port', '9787']);

    // Assess
    expect(options.ports).toEqual({ sandbox: 9787, dynamo: 8000, events: 0 });
  });

  it('reorders and repeats deliveries by default, from the seed it is given or a random one', () => {
    // Act
    const drawn = parseStartArgs([]);
    const seeded = parseStartArgs(['--seed', '12345']);
    const ordered = parseStartArgs(['--serve', '--ordered-delivery']);

    // Assess
    expect(drawn.seed).toBeUndefined();
    expect(drawn.orderedDelivery).toBe(false);
    expect(seeded.seed).toBe(12345);
    expect(ordered.orderedDelivery).toBe(true);
  });

  it.each([
    [['--seed', 'x']],
    [['--seed', '-3']],
    [['--events-port', '0']],
    [['--serve', '--dynamo-port', 'x']],
    [['--serve', '--time-scale', '2']],
    [['--no-token']],
    [['--bogus']],
  ])('refuses %j with the usage', (argv) => {
    // Act + Assess
    expect(() => parseStartArgs(argv)).toThrow(StartUsageError);
    expect(() => parseStartArgs(argv)).toThrow(/usage: npm start/);
  });
});

describe('npm start', () => {
  it('replays the scenario, prints progress and the summary, and exits 0', async () => {
    // Act
    const { code, output } = await runCommand('local/cli.ts', []);

    // Assess
    expect(code, output.slice(-3000)).toBe(0);
    expect(output).toMatch(/^delivery seed (\d+) \(repeat with --seed \1\)$/m);
    expect(output).toMatch(/\[1\/\d+\] AccountCreated.* ok → BusinessProvisioned/);
    expect(output).toMatch(/trial watch .* ok → .*TrialEnded/);
    expect(output).toContain('Summary');
    // The hostname's number is the demo's place among the scenario's two signups, which reach the
    // sandbox in either order (local/aws/delivery-model.ts).
    expect(output).toMatch(
      /\n {2}acct-1001 {2}harborcafe-\d+\.us\.sandbox\.test {2}SUBSCRIPTION_PAID_PRO_PREMIUM\n/,
    );
    expect(output).toMatch(/\n {4}location loc-waterfront → id \d+; areas Kitchen → \d+/);
    // The trial business: no trial end once it is no longer on trial, and what became of it.
    expect(output).toMatch(
      /\n {2}acct-1002 {2}\S+ {2}deleted by the service while SUBSCRIPTION_FREE \(BusinessGone published\)\n/,
    );
    expect(output).not.toMatch(/PREMIUM until/);
    expect(output).toMatch(/Events published by the connector: \d+/);
    expect(output).toContain('Failures: none');
  }, 120_000);

  it('exits non-zero with the reason when a server cannot start', async () => {
    // Prepare: a port taken by someone else.
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as { port: number }).port;

    // Act
    const { code, output } = await runCommand('local/cli.ts', [
      '--serve',
      ...['--sandbox-port', String(taken), '--dynamo-port', '0', '--events-port', '0'],
    ]);
    await new Promise<void>((resolve) => blocker.close(() => resolve()));

    // Assess
    expect(code).toBe(1);
    expect(output).toMatch(/npm start failed: .*EADDRINUSE.*is another `npm start -- --serve`/);
  }, 60_000);
});

describe('npm run invoke', () => {
  it('wraps a PutEvents entry as the deployed rule, pipe and event source would, and runs the function on it', async () => {
    // Act
    const { code, output } = await runCommand('local/invoke.ts', [
      'provision-business',
      'events/inbound/AccountCreated/eventbridge-entry.json',
      '--fresh',
      '--seed',
      '4242',
    ]);

    // Assess
    expect(code, output.slice(-3000)).toBe(0);
    expect(output).toContain('delivery seed 4242 (repeat with --seed 4242)');
    expect(output).toContain('"detail-type": "BusinessProvisioned"');
  }, 60_000);

  it('says which files it takes instead of failing on an event of another shape', async () => {
    // Act
    const { code, output } = await runCommand('local/invoke.ts', [
      'provision-business',
      'package.json',
      '--fresh',
    ]);

    // Assess
    expect(code).toBe(1);
    expect(output).toMatch(/SQS batch.*EventBridge event or a PutEvents entry/);
    expect(output).not.toMatch(/\n\s+at /);
  }, 60_000);

  it('runs one handler on a sample event and prints its result and the events it published', async () => {
    // Act: --fresh, so a serve mode someone else runs on this machine is not used.
    const { code, output } = await runCommand('local/invoke.ts', [
      'provision-business',
      'events/inbound/AccountCreated/sqs-fifo-batch.json',
      '--fresh',
      '--ordered-delivery',
    ]);

    // Assess
    expect(code, output.slice(-3000)).toBe(0);
    expect(output).toMatch(
      /^delivery in send order, nothing repeated \(--ordered-delivery: for debugging only/m,
    );
    expect(output).toMatch(/Result \(\d+ ms\):\n\{\n\s+"batchItemFailures": \[\]/);
    expect(output).toMatch(/Events published \(1\):/);
    expect(output).toContain('"detail-type": "BusinessProvisioned"');
  }, 60_000);

  it('says a record it did not finish would come back, and when, instead of failing on a receipt handle no queue knows', async () => {
    // Act: a fresh runtime has no business for the sample's account, so the record waits.
    const { code, output } = await runCommand('local/invoke.ts', [
      'subscription-status',
      'events/inbound/SubscriptionStatusRequested/eventbridge-entry.json',
      '--fresh',
    ]);

    // Assess
    expect(code, output.slice(-3000)).toBe(0);
    expect(output).toMatch(/"batchItemFailures": \[\s+\{\s+"itemIdentifier"/);
    expect(output).toMatch(/1 record\(s\) not finished: on AWS they stay on the queue/);
    expect(output).toMatch(/visible again after \d+ s/);
    expect(output).not.toContain('ReceiptHandleIsInvalid');
    expect(output).not.toContain("could not set the failed records' visibility");
  }, 60_000);

  it('lists every function of the route table in its usage', async () => {
    // Act
    const { code, output } = await runCommand('local/invoke.ts', ['--help']);

    // Assess
    expect(code).toBe(0);
    for (const name of [
      ...queueRoutes.map((route) => route.functionName),
      ...scheduledFunctions.map((scheduled) => scheduled.functionName),
      refusalFunction.functionName,
    ]) {
      expect(output).toContain(name);
    }
  }, 60_000);

  it('refuses an unknown function with the list of known ones', async () => {
    // Act
    const { code, output } = await runCommand('local/invoke.ts', [
      'no-such-function',
      'events/inbound/AccountCreated/sqs-fifo-batch.json',
      '--fresh',
    ]);

    // Assess
    expect(code).toBe(1);
    expect(output).toMatch(/no function for no-such-function[\s\S]*provision-business/);
  }, 60_000);
});
