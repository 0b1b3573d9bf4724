import { afterEach, describe, expect, it } from 'vitest';
import { dynamoDbClient } from '#functions/runtime/clients/dynamodb.ts';
import { eventBridgeClient } from '#functions/runtime/clients/eventbridge.ts';
import { secretsProvider } from '#functions/runtime/clients/secrets.ts';
import { sqsClient } from '#functions/runtime/clients/sqs.ts';

/**
 * The functions' SDK clients: one per process and endpoint. A deployed function's environment names
 * one endpoint per service (or none: AWS's own), so it has one client each; test files that share a
 * worker process each name their own, and must not be handed a client of an endpoint gone with an
 * earlier file.
 */

const clients = [
  ['AWS_ENDPOINT_URL_DYNAMODB', dynamoDbClient],
  ['AWS_ENDPOINT_URL_EVENTBRIDGE', eventBridgeClient],
  ['AWS_ENDPOINT_URL_SQS', sqsClient],
  ['AWS_ENDPOINT_URL_SECRETS_MANAGER', secretsProvider],
] as const;

const before = Object.fromEntries(clients.map(([variable]) => [variable, process.env[variable]]));

afterEach(() => {
  for (const [variable, value] of Object.entries(before)) {
    if (value === undefined) delete process.env[variable];
    else process.env[variable] = value;
  }
});

describe.each(clients)('the client of %s', (variable, client) => {
  it('is the same on every call for one endpoint, and another for another endpoint', () => {
    // Prepare
    process.env[variable] = 'http://127.0.0.1:4501';
    const first = client();

    // Act
    const again = client();
    process.env[variable] = 'http://127.0.0.1:4502';
    const other = client();
    process.env[variable] = 'http://127.0.0.1:4501';
    const back = client();

    // Assess
    expect(again).toBe(first);
    expect(other).not.toBe(first);
    expect(back).toBe(first);
  });
});
