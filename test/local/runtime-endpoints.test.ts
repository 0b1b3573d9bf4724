import { describe, expect, it } from 'vitest';
import { startLocalRuntime } from '#local/runtime.ts';

/**
 * A running local runtime's endpoints are the process's: the functions' SDK clients are one per
 * endpoint (functions/runtime/clients/), so a tool in the process that reaches them (the bench's
 * request recorder, a test counting a handler's reads) is handed the ones the functions use. When
 * the runtime stops, the variables are what they were before it.
 */

const SERVICES = ['DYNAMODB', 'EVENTBRIDGE', 'SQS', 'SECRETS_MANAGER'] as const;

describe('a local runtime’s endpoints', () => {
  it('are the process’s while it runs, and what they were before once it stops', async () => {
    // Prepare
    process.env['AWS_ENDPOINT_URL_SQS'] = 'http://127.0.0.1:4509/before';
    delete process.env['AWS_ENDPOINT_URL_DYNAMODB'];

    // Act
    const runtime = await startLocalRuntime({ logLevel: 'SILENT' });
    const running = Object.fromEntries(
      SERVICES.map((name) => [name, process.env[`AWS_ENDPOINT_URL_${name}`]]),
    );
    await runtime.close();

    // Assess
    expect(running).toEqual({
      DYNAMODB: runtime.dynamoEndpoint,
      EVENTBRIDGE: runtime.eventsEndpoint,
      SQS: runtime.eventsEndpoint,
      SECRETS_MANAGER: runtime.eventsEndpoint,
    });
    expect(process.env['AWS_ENDPOINT_URL_SQS']).toBe('http://127.0.0.1:4509/before');
    expect(process.env['AWS_ENDPOINT_URL_DYNAMODB']).toBeUndefined();
  });
});
