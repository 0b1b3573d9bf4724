import { describe, expect, it } from 'vitest';
import { createLambdaContext } from '#local/aws/lambda.ts';
import { InProcessFunctionHost } from '#local/function-host.ts';

/**
 * The in-process function host gives every execution environment a module instance of its own,
 * also across hosts: two local runtimes started one after the other in one process (two chaos
 * runs in one test file, or two test files sharing a worker process) must not hand the second the
 * first one's modules, which hold the first runtime's configuration, endpoints and clients.
 */

const settings = { functionName: 'instance', region: 'us-east-1', timeoutMs: 10_000 };
const fn = {
  logicalId: 'Instance',
  name: 'instance',
  arn: 'arn:aws:lambda:us-east-1:000000000000:function:instance',
  entry: 'test/local/fixtures/instance-handler.ts',
  handlerExport: 'handler',
  timeoutSeconds: 10,
  memoryMb: 128,
  environment: {},
  settings,
};

async function instanceOf(host: InProcessFunctionHost): Promise<unknown> {
  const handler = await host.load(fn);
  return handler({}, createLambdaContext(settings));
}

describe('in-process function host', () => {
  it('gives the first environment of a second host a module instance of its own', async () => {
    // Prepare
    const first = new InProcessFunctionHost(() => ({}));
    const second = new InProcessFunctionHost(() => ({}));

    // Act
    const firstInstance = await instanceOf(first);
    const secondInstance = await instanceOf(second);

    // Assess
    expect(typeof firstInstance).toBe('string');
    expect(secondInstance).not.toBe(firstInstance);
    expect(await instanceOf(first)).toBe(firstInstance);
  });

  it('gives a second host of shared modules the function’s module of its own, and each host one for all its invocations', async () => {
    // Prepare: shared modules (the bench's), as two runtimes one after the other in one process have them.
    const first = new InProcessFunctionHost(() => ({}), 'shared');
    const second = new InProcessFunctionHost(() => ({}), 'shared');

    // Act
    const firstInstance = await instanceOf(first);
    const secondInstance = await instanceOf(second);

    // Assess
    expect(typeof firstInstance).toBe('string');
    expect(secondInstance).not.toBe(firstInstance);
    expect(await Promise.all([instanceOf(first), instanceOf(first)])).toEqual([firstInstance, firstInstance]);
  });
});
