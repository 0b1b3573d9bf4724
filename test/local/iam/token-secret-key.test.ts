import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectDenials } from '#local/iam/denial-log.ts';
import { type LocalRuntime, startLocalRuntime } from '#local/runtime.ts';
import type { SynthesizedStack } from '#local/template.ts';
import { sampleEntry } from '#test/local/samples.ts';
import { actionsOf, editPolicies } from './template-edits.ts';

/**
 * The partner's existing token secret under a customer managed key (config `tokenSecret`
 * `{existingSecretName, kmsKeyArn}`, issue 26 point 6): locally the secret exists before the deploy,
 * encrypted with that key, whose key policy is the documented default (the account's IAM policies
 * decide). Reading it is secretsmanager:GetSecretValue on the secret and, made by Secrets Manager
 * for the caller, kms:Decrypt on the key with kms:ViaService = secretsmanager.<region>.amazonaws.com
 * (local/iam/requests.ts). The template as synthesized grants both; without the function's
 * kms:Decrypt statement every read is denied, and the record ends as AWS would end it: retried as
 * TOKEN_UNAVAILABLE, counting its attempts, until it gives up.
 */

const KEY_ARN = 'arn:aws:kms:us-east-1:000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const config = { tokenSecret: { existingSecretName: 'partner/workforce-token', kmsKeyArn: KEY_ARN } };

expectDenials();

async function publishAccountCreated(runtime: LocalRuntime): Promise<string> {
  const eventBridge = new EventBridgeClient({
    region: runtime.region,
    endpoint: runtime.eventsEndpoint,
    credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'test' },
  });
  try {
    const answer = await eventBridge.send(new PutEventsCommand({ Entries: [sampleEntry('AccountCreated')] }));
    return answer.Entries?.[0]?.EventId ?? '';
  } finally {
    eventBridge.destroy();
  }
}

describe('an existing token secret under a customer managed key, the template as synthesized', () => {
  let runtime: LocalRuntime;

  beforeAll(async () => {
    runtime = await startLocalRuntime({ logLevel: 'SILENT', config });
  });

  afterAll(async () => {
    await runtime?.close();
  });

  it('reads the token through Secrets Manager with the key: kms:Decrypt allowed via the service, the signup done', async () => {
    // Act
    await publishAccountCreated(runtime);
    await runtime.waitForIdle();

    // Assess
    expect(runtime.denied()).toEqual([]);
    expect(runtime.outbound().map((event) => event['detail-type'])).toEqual(['BusinessProvisioned']);
    const decrypts = runtime.iam!.iam.used().filter((use) => use.action === 'kms:Decrypt');
    expect(decrypts).toEqual([expect.objectContaining({ resource: KEY_ARN, by: 'code' })]);
    expect(decrypts[0]?.roleArn).toBe(
      runtime.iam!.iam.template.functionRoles.get(runtime.functionNamed('provision-business').name),
    );
  });
});

describe('an existing token secret under a customer managed key, the provisioning role’s kms:Decrypt removed', () => {
  let runtime: LocalRuntime;

  beforeAll(async () => {
    runtime = await startLocalRuntime({
      logLevel: 'SILENT',
      config,
      // Retry waits scaled to a few ms: the record counts its attempts and gives up quickly.
      timeScale: 1 / 10_000,
      editTemplates: (stacks: SynthesizedStack[]) =>
        editPolicies(
          stacks,
          'AWS::IAM::Policy',
          'ConnectorAccountCreatedFunctionRoleDefaultPolicy',
          (statements) => statements.filter((statement) => !actionsOf(statement).includes('kms:Decrypt')),
        ),
    });
  });

  afterAll(async () => {
    await runtime?.close();
  });

  it('denies the read with AccessDenied naming kms:Decrypt and the key, and the record ends as TOKEN_UNAVAILABLE after its attempts', async () => {
    // Act
    const eventId = await publishAccountCreated(runtime);
    await vi.waitFor(() => expect(runtime.dlq().some((entry) => entry.body.includes(eventId))).toBe(true), {
      timeout: 30_000,
      interval: 50,
    });
    await runtime.waitForIdle();

    // Assess: the denial, as AWS words it …
    const denials = runtime.denied();
    expect(new Set(denials.map(({ action, resource }) => `${action} ${resource}`))).toEqual(
      new Set([`kms:Decrypt ${KEY_ARN}`]),
    );
    expect(denials[0]).toMatchObject({
      // The role of the AccountCreated route's function (CloudFormation cuts long generated names).
      principal: expect.stringMatching(
        /:assumed-role\/[^/]*ConnectorAccou[^/]*\/[^/]*ConnectorAccountCreatedFunc/,
      ),
      reason: 'because no identity-based policy allows the kms:Decrypt action',
    });
    // … and the record, retried as TOKEN_UNAVAILABLE until it gave up, told and kept.
    expect(runtime.dlq().find((entry) => entry.body.includes(eventId))).toMatchObject({
      lastErrorCode: 'TOKEN_UNAVAILABLE',
    });
    const told = runtime.outbound().filter((event) => event.detail['sourceEventId'] === eventId);
    expect(told.map((event) => [event['detail-type'], event.detail['code']])).toEqual([
      ['SyncFailed', 'RETRIES_EXHAUSTED'],
    ]);
  });
});
