import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { outboundContracts } from '#functions/contracts/registry.ts';
import {
  RetryableError,
  TokenMissingError,
  TokenProblemError,
  TokenRejectedError,
} from '#functions/domain/errors.ts';
import { loadConfig } from '#functions/runtime/config.ts';
import { buildDependencies } from '#functions/runtime/dependencies.ts';
import { tokenFromSecret } from '#functions/service/token.ts';
import { replyJson, startFakeService } from '#test/client/fake-service.ts';
import { captureOutput } from './captured-output.ts';
import { type FakeAwsServer, startFakeAws, useFakeAwsEnvironment } from './fake-aws.ts';

const secrets: Record<string, { SecretString?: string; SecretBinary?: string }> = {
  'plain-token': { SecretString: 'plain-token-value\n' },
  'json-token': { SecretString: JSON.stringify({ token: 'json-token-value' }) },
  'binary-token': { SecretBinary: Buffer.from('binary-token-value').toString('base64') },
  'cached-token': { SecretString: 'cached-token-value' },
  'concurrent-token': { SecretString: 'concurrent-token-value' },
  'empty-token': { SecretString: '   ' },
  'json-without-token': { SecretString: JSON.stringify({ password: 'hunter2-value' }) },
};

let server: FakeAwsServer;

beforeAll(async () => {
  useFakeAwsEnvironment();
  server = await startFakeAws({
    'secretsmanager.GetSecretValue': (body) => {
      const id = String(body['SecretId']);
      if (id === 'throttled-token') {
        return { status: 400, body: { __type: 'AccessDeniedException', message: 'not allowed' } };
      }
      const secret = secrets[id];
      if (!secret) {
        return {
          status: 400,
          body: {
            __type: 'ResourceNotFoundException',
            message: "Secrets Manager can't find the specified secret.",
          },
        };
      }
      return {
        body: { ARN: `arn:aws:secretsmanager:us-east-1:123456789012:secret:${id}`, Name: id, ...secret },
      };
    },
  });
  // The functions' provider for this endpoint is built on first use, after this: the SDK reads the
  // variable itself (one provider per endpoint: functions/runtime/clients/per-endpoint.ts).
  process.env['AWS_ENDPOINT_URL_SECRETS_MANAGER'] = server.endpoint;
});

afterAll(async () => {
  await server.close();
});

function callsFor(secretId: string): number {
  return server.calls.filter((call) => call.body['SecretId'] === secretId).length;
}

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('tokenFromSecret', () => {
  it('reads a plain-string secret through the endpoint named by AWS_ENDPOINT_URL_SECRETS_MANAGER', async () => {
    // Act
    const token = await tokenFromSecret('plain-token')();

    // Assess
    expect(token).toBe('plain-token-value');
    expect(callsFor('plain-token')).toBe(1);
  });

  it('reads the token field of a JSON secret', async () => {
    // Act
    const token = await tokenFromSecret('json-token')();

    // Assess
    expect(token).toBe('json-token-value');
  });

  it('reads a binary secret as UTF-8 text', async () => {
    // Act
    const token = await tokenFromSecret('binary-token')();

    // Assess
    expect(token).toBe('binary-token-value');
  });

  it('fetches the secret once for many reads within the max age', async () => {
    // Prepare
    const token = tokenFromSecret('cached-token', { maxAgeSeconds: 300 });

    // Act
    const values = [await token(), await token(), await token()];

    // Assess
    expect(values).toEqual(['cached-token-value', 'cached-token-value', 'cached-token-value']);
    expect(callsFor('cached-token')).toBe(1);
  });

  it('shares one fetch between concurrent first reads', async () => {
    // Prepare
    const token = tokenFromSecret('concurrent-token');

    // Act
    const values = await Promise.all(Array.from({ length: 5 }, () => token()));

    // Assess
    expect(new Set(values)).toEqual(new Set(['concurrent-token-value']));
    expect(callsFor('concurrent-token')).toBe(1);
  });

  it('fetches again once the max age has passed', async () => {
    // Prepare
    const provider = new SecretsProvider({
      awsSdkV3Client: new SecretsManagerClient({ endpoint: server.endpoint }),
    });
    const token = tokenFromSecret('json-token', { maxAgeSeconds: 0, provider });
    const before = callsFor('json-token');

    // Act
    await token();
    await token();

    // Assess
    expect(callsFor('json-token') - before).toBe(2);
  });

  it.each([
    ['missing-token', 'does not exist'],
    ['empty-token', 'is empty'],
    ['json-without-token', 'without a non-empty "token"'],
  ])(
    'refuses %s as a missing token (records wait for it) without the secret value',
    async (secretId, expected) => {
      // Act
      const error = await rejectionOf(tokenFromSecret(secretId)());

      // Assess
      expect(error).toBeInstanceOf(TokenMissingError);
      expect(error).toBeInstanceOf(TokenProblemError);
      expect((error as TokenMissingError).code).toBe('TOKEN_MISSING');
      expect(error.message).toContain(secretId);
      expect(error.message).toContain(expected);
      expect(error.message).not.toContain('hunter2');
    },
  );

  it('reports other Secrets Manager failures as retryable', async () => {
    // Act
    const error = await rejectionOf(tokenFromSecret('throttled-token')());

    // Assess
    expect(error).toBeInstanceOf(RetryableError);
    expect((error as RetryableError).code).toBe('TOKEN_UNAVAILABLE');
  });
});

describe('the functions’ service client and a refused token', () => {
  it('reads the secret again after a refusal, counts TokenProblems without a service dimension, and surfaces TOKEN_REJECTED', async () => {
    // Prepare: a service that refuses every token, and the secret the function reads.
    secrets['refused-token'] = { SecretString: 'refused-token-value' };
    const service = await startFakeService((_request, response) => replyJson(response, 401, {}));
    const config = loadConfig({
      TABLE_NAME: 'connector',
      EVENT_BUS_NAME: 'partner-bus',
      TOKEN_SECRET_ID: 'refused-token',
      PARTNER_NAME: 'acme',
      PROVISIONING_URLS: JSON.stringify({ US: service.url }),
      // No table here: the request budget (which lives in it) is tested in test/store.
      REQUEST_BUDGET: 'off',
    });
    const { service: client } = buildDependencies(config, outboundContracts);
    const before = callsFor('refused-token');
    const output = captureOutput();

    // Act
    let error: Error;
    try {
      error = await rejectionOf(client.provisioning.subscriptionStatus('cafe-1.us.sandbox.test'));
    } finally {
      vi.restoreAllMocks();
      await service.close();
    }

    // Assess: fetched, refused, fetched again (the same token, so not sent again), refused for good.
    expect(error).toBeInstanceOf(TokenRejectedError);
    expect(callsFor('refused-token') - before).toBe(2);
    expect(service.requests).toHaveLength(1);
    const problems = output.jsonLines('"TokenProblems"');
    expect(problems).toEqual([expect.objectContaining({ code: 'TOKEN_REJECTED', TokenProblems: 1 })]);
    expect(problems[0]?.['service']).toBeUndefined();
  });
});
