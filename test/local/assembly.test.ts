import { appendFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANDLER_SOURCE_METADATA, type HandlerSource } from '#lib/handler-source.ts';
import {
  type AssemblyStack,
  CloudAssemblyError,
  type CloudAssemblyStacks,
  localAssembly,
  readCloudAssembly,
} from '#local/assembly.ts';
import { parseStartArgs } from '#local/cli-options.ts';
import type { LocalResources, OutboundEvent } from '#local/runtime.ts';
import { startLocalRuntime } from '#local/runtime.ts';
import { sandboxAddresses } from '#local/template.ts';
import { globexCloudAssembly } from '#test/support/cdk-synth.ts';
import { runCommand } from './child-process.ts';
import { sampleEntry, startServe } from './samples.ts';

/**
 * `npm start -- --assembly <cdk.out>`: a cloud assembly `cdk synth` wrote for another partner (the
 * example config with that partner's name, account and region, bus, secret, sources and service
 * addresses as cdk context: test/support/cdk-synth.ts) runs the scenario and serve mode as the
 * example does, its functions from the assembly's own bundles.
 */

/** The bundle file of the function whose source is `entry`. */
function bundleOfEntry(assembly: CloudAssemblyStacks, entry: string): string {
  for (const stack of assembly.stacks) {
    for (const [logicalId, resource] of Object.entries(stack.template.Resources)) {
      const source = resource.Metadata?.[HANDLER_SOURCE_METADATA] as HandlerSource | undefined;
      if (source?.entry !== entry) continue;
      const bundle = assembly.bundles.get(`${stack.stackName}/${logicalId}`);
      if (bundle?.kind === 'bundle') return bundle.file;
    }
  }
  throw new Error(`no bundle of ${entry} in the assembly`);
}

describe('npm start -- --assembly <cdk.out>', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'connector-assembly-'));
  let outdir: string;
  let assembly: CloudAssemblyStacks;

  // Bundling every function on a shared two-core machine can take most of a minute.
  beforeAll(async () => {
    outdir = await globexCloudAssembly();
    assembly = await readCloudAssembly(outdir);
  }, 240_000);

  afterAll(() => {
    // The tampered copy: every bundle with its source map, a few dozen MB.
    rmSync(workDir, { recursive: true, force: true });
  });

  it('reads the stacks in dependency order and finds every function’s bundle among the assets', () => {
    // Act
    const names = assembly.stacks.map((stack) => stack.stackName);
    const bundles = [...assembly.bundles.values()];

    // Assess
    expect(names).toEqual(['WorkforceConnector-globex-prod-State', 'WorkforceConnector-globex-prod-Service']);
    expect(bundles.length).toBeGreaterThan(10);
    for (const bundle of bundles) {
      expect(bundle.kind).toBe('bundle');
      if (bundle.kind === 'bundle')
        expect(bundle.file).toMatch(new RegExp(`^${outdir}/asset\\.[0-9a-f]{64}/index\\.mjs$`));
    }
  });

  it('points every function at the sandbox, and says what it replaced', () => {
    // Act
    const local = localAssembly(assembly.stacks, sandboxAddresses('http://127.0.0.1:9999'), {
      account: '000000000000',
      region: 'us-east-1',
    });
    const environments = local.stacks.flatMap((stack) =>
      Object.values(stack.template.Resources)
        .filter((resource) => resource.Type === 'AWS::Lambda::Function')
        .map(
          (resource) =>
            (resource.Properties?.['Environment'] as { Variables: Record<string, unknown> } | undefined)
              ?.Variables ?? {},
        ),
    );
    const callers = environments.filter((variables) => variables['PROVISIONING_URLS'] !== undefined);

    // Assess
    expect(local.settings).toEqual({
      partnerName: 'globex',
      inboundSource: 'globex.app',
      outboundSource: 'globex.connector',
      regions: ['US'],
    });
    // Every function is given the connector's settings (lib/connector-environment.ts).
    expect(callers).toHaveLength(environments.length);
    for (const variables of callers) {
      expect(variables).toMatchObject({
        PROVISIONING_URLS: '{"US":"http://127.0.0.1:9999"}',
        INSTALL_URL_TEMPLATE: 'http://127.0.0.1:9999/installs/{hostname}',
        ALLOWED_HOSTNAME_SUFFIXES: '.sandbox.test',
        PARTNER_NAME: 'globex',
      });
    }
    expect(local.notes).toEqual([
      'service addresses of the assembly pointed at the sandbox:',
      '  provisioning US https://provisioning.globex.example → http://127.0.0.1:9999',
      '  install URL https://{hostname} → http://127.0.0.1:9999/installs/{hostname}',
      '  install hostnames .globex.example → .sandbox.test',
      // The config pins its account and region (lib/config-deployment.ts): run locally in the local ones.
      ...['State', 'Service'].map(
        (stack) =>
          `WorkforceConnector-globex-prod-${stack} targets account 210987654321, region eu-west-1: run as account 000000000000, region us-east-1 (its ARNs, conditions and service principals rewritten)`,
      ),
    ]);
  });

  it('runs the scenario on it and exits 0, its functions from the assembly’s bundles (the project’s where one is missing, said so)', async () => {
    // Prepare: a copy whose provision-business bundle says it ran, and whose drift-watch bundle is gone.
    const copy = join(workDir, 'tampered.out');
    cpSync(outdir, copy, { recursive: true });
    const copied = await readCloudAssembly(copy);
    appendFileSync(
      bundleOfEntry(copied, 'functions/provision-business/handler.ts'),
      "\nconsole.log('assembly bundle marker: provision-business');\n",
    );
    const driftWatch = bundleOfEntry(copied, 'functions/drift-watch/handler.ts');
    rmSync(join(driftWatch, '..'), { recursive: true, force: true });

    // Act
    const { code, output } = await runCommand('local/cli.ts', ['--assembly', copy]);

    // Assess
    expect(code, output.slice(-3000)).toBe(0);
    expect(output).toContain(`Local connector from the cloud assembly ${copy}`);
    expect(output).toMatch(
      /cloud assembly .* stacks WorkforceConnector-globex-prod-State, WorkforceConnector-globex-prod-Service; partner globex, inbound source globex\.app/,
    );
    expect(output).toMatch(
      /provisioning US https:\/\/provisioning\.globex\.example → http:\/\/127\.0\.0\.1:\d+\n/,
    );
    expect(output).toMatch(/(\d+) of (\d+) functions run from the assembly's own bundles/);
    expect(output).toMatch(
      /DriftWatchFunction\w*: its asset folder asset\.\w+ is not in the assembly; running the project's bundle of functions\/drift-watch\/handler\.ts instead/,
    );
    expect(output).toContain('assembly bundle marker: provision-business');
    expect(output).toMatch(/\[1\/\d+\] AccountCreated.* ok → BusinessProvisioned/);
    expect(output).toMatch(
      /service deletes the lapsed free business; the drift watch notices ok → BusinessGone/,
    );
    expect(output).toContain('Failures: none');
  }, 180_000);

  it('serves it: the assembly’s bus takes the partner’s events, and its results come back with its outbound source', async () => {
    // Prepare
    const { serve, endpoints } = await startServe(['--assembly', outdir]);
    const eventBridge = new EventBridgeClient({
      region: 'us-east-1',
      endpoint: endpoints.events,
      credentials: { accessKeyId: 'AKIATESTASSEMBLY', secretAccessKey: 'test' },
    });
    try {
      const resources = (await (
        await fetch(`${endpoints.events}/_local/resources`)
      ).json()) as LocalResources;

      // Act
      const answer = await eventBridge.send(
        new PutEventsCommand({
          Entries: [
            { ...sampleEntry('AccountCreated'), EventBusName: resources.busName, Source: 'globex.app' },
          ],
        }),
      );
      const eventId = answer.Entries?.[0]?.EventId;
      await fetch(`${endpoints.events}/_local/idle`);
      const outbound = (await (await fetch(`${endpoints.events}/_local/outbound`)).json()) as OutboundEvent[];

      // Assess
      expect(resources).toMatchObject({
        busName: 'workforce-connector-globex',
        tokenSecretName: 'workforce-connector/globex/token',
      });
      expect(serve.output()).toContain(`Local connector running from the cloud assembly ${outdir}`);
      expect(eventId).toBeDefined();
      expect(
        outbound
          .filter((event) => event.detail['causationId'] === eventId)
          .map((event) => event['detail-type']),
      ).toEqual(['BusinessProvisioned']);
      expect(outbound[0]?.source).toBe('globex.connector');
    } finally {
      eventBridge.destroy();
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
    }
  }, 180_000);
});

describe('a cloud assembly the local runtime cannot run', () => {
  it('says so when the directory is not one, or of a schema newer than this CDK reads', async () => {
    // Prepare
    const empty = mkdtempSync(join(tmpdir(), 'connector-no-assembly-'));
    const newer = mkdtempSync(join(tmpdir(), 'connector-newer-assembly-'));
    writeFileSync(join(newer, 'manifest.json'), JSON.stringify({ version: '999.0.0', artifacts: {} }));

    // Act + Assess
    await expect(readCloudAssembly(empty)).rejects.toThrow(CloudAssemblyError);
    await expect(readCloudAssembly(empty)).rejects.toThrow(
      /no manifest\.json: expected the directory `cdk synth` writes/,
    );
    await expect(readCloudAssembly(newer)).rejects.toThrow(/999\.0\.0/);
    rmSync(empty, { recursive: true, force: true });
    rmSync(newer, { recursive: true, force: true });
  });

  it('names the nested assemblies of CDK stages to run instead', async () => {
    // Prepare
    const staged = mkdtempSync(join(tmpdir(), 'connector-staged-assembly-'));
    const { Manifest } = await import('aws-cdk-lib/cloud-assembly-schema');
    writeFileSync(
      join(staged, 'manifest.json'),
      JSON.stringify({
        version: Manifest.version(),
        artifacts: {
          'assembly-Prod': { type: 'cdk:cloud-assembly', properties: { directoryName: 'assembly-Prod' } },
        },
      }),
    );

    // Act + Assess
    await expect(readCloudAssembly(staged)).rejects.toThrow(`--assembly ${join(staged, 'assembly-Prod')}`);
    rmSync(staged, { recursive: true, force: true });
  });

  it('refuses the options that change a synthesis', async () => {
    // Act + Assess
    await expect(startLocalRuntime({ assembly: tmpdir(), config: { httpTimeoutMs: 4000 } })).rejects.toThrow(
      /a cloud assembly runs as it was synthesized: config change a synthesis/,
    );
  });

  it('takes --assembly relative to where npm start was typed', () => {
    // Prepare
    const typedIn = process.env['INIT_CWD'];
    process.env['INIT_CWD'] = '/home/partner/connector';
    try {
      // Act
      const options = parseStartArgs(['--assembly', 'cdk.out', '--serve']);

      // Assess
      expect(options.assembly).toBe('/home/partner/connector/cdk.out');
    } finally {
      if (typedIn === undefined) delete process.env['INIT_CWD'];
      else process.env['INIT_CWD'] = typedIn;
    }
  });
});

describe('an assembly synthesized for an account and region', () => {
  const stack = (template: unknown): AssemblyStack => ({
    artifactId: 'Service',
    stackName: 'Service',
    environment: { account: '111122223333', region: 'eu-west-1' },
    template: template as AssemblyStack['template'],
  });
  const fn = {
    Type: 'AWS::Lambda::Function',
    Properties: {
      Environment: {
        Variables: {
          PARTNER_NAME: 'globex',
          PROVISIONING_URLS: '{"US":"https://provisioning.globex.example"}',
          INBOUND_SOURCE: 'globex.app',
          OUTBOUND_SOURCE: 'globex.connector',
        },
      },
    },
  };

  it('runs in the local account and region: ARNs, conditions and regional service principals rewritten, and said', () => {
    // Prepare
    const policy = {
      Type: 'AWS::IAM::Policy',
      Properties: {
        PolicyDocument: {
          Statement: [
            {
              Action: 'secretsmanager:GetSecretValue',
              Resource: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:partner/token-??????',
            },
            {
              Action: 'kms:Decrypt',
              Resource: 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab',
              Condition: { StringEquals: { 'kms:ViaService': 'secretsmanager.eu-west-1.amazonaws.com' } },
            },
            { Condition: { StringEquals: { 'aws:SourceAccount': '111122223333' } } },
          ],
        },
      },
    };

    // Act
    const local = localAssembly(
      [stack({ Resources: { Fn: fn, Policy: policy } })],
      sandboxAddresses('http://127.0.0.1:1'),
      { account: '000000000000', region: 'us-east-1' },
    );

    // Assess
    expect(local.stacks[0]?.template.Resources['Policy']?.Properties?.['PolicyDocument']).toEqual({
      Statement: [
        {
          Action: 'secretsmanager:GetSecretValue',
          Resource: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:partner/token-??????',
        },
        {
          Action: 'kms:Decrypt',
          Resource: 'arn:aws:kms:us-east-1:000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab',
          Condition: { StringEquals: { 'kms:ViaService': 'secretsmanager.us-east-1.amazonaws.com' } },
        },
        { Condition: { StringEquals: { 'aws:SourceAccount': '000000000000' } } },
      ],
    });
    expect(local.notes).toContain(
      'Service targets account 111122223333, region eu-west-1: run as account 000000000000, region us-east-1 (its ARNs, conditions and service principals rewritten)',
    );
  });

  it('drops CDK’s version reporting and the condition only it uses', () => {
    // Act
    const local = localAssembly(
      [
        stack({
          Resources: {
            Fn: fn,
            CDKMetadata: { Type: 'AWS::CDK::Metadata', Condition: 'CDKMetadataAvailable', Properties: {} },
          },
          Conditions: { CDKMetadataAvailable: { 'Fn::Or': [] } },
        }),
      ],
      sandboxAddresses('http://127.0.0.1:1'),
      { account: '000000000000', region: 'us-east-1' },
    );

    // Assess
    expect(Object.keys(local.stacks[0]?.template.Resources ?? {})).toEqual(['Fn']);
    expect(local.stacks[0]?.template.Conditions).toBeUndefined();
  });

  it('refuses an app without the connector’s settings', () => {
    // Act + Assess
    expect(() =>
      localAssembly(
        [stack({ Resources: { Other: { Type: 'AWS::SQS::Queue', Properties: {} } } })],
        sandboxAddresses('http://127.0.0.1:1'),
        { account: '000000000000', region: 'us-east-1' },
      ),
    ).toThrow(/no function with the connector settings .* is it the connector app\?/);
  });
});
