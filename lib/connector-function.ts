import { fileURLToPath } from 'node:url';
import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import {
  type BundlingOptions,
  NodejsFunction,
  type NodejsFunctionProps,
  OutputFormat,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { TableAccess } from '#functions/routes.ts';
import { DRIFT_INDEX_NAME, TRIAL_INDEX_NAME } from '#functions/store/table.ts';
import { HANDLER_SOURCE_METADATA, type HandlerSource } from './handler-source.ts';

/** Repository root: entries in `functions/routes.ts` are relative to it, and esbuild runs there. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * esbuild emits ESM, but some bundled dependencies are CommonJS and call `require` (Node
 * built-ins among them); ESM has no `require`, so the bundle gets one made from its own URL.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as connectorCreateRequire } from 'node:module';" +
  'const require = connectorCreateRequire(import.meta.url);';

/**
 * How every function is bundled: ESM for node22 (loadable on the build machine, where test/infra
 * runs it, and on nodejs22.x/24.x), minified, with a linked source map without sources content
 * (enabled at run time by NODE_OPTIONS), the AWS SDK bundled (the pinned clients, not whatever the
 * runtime ships), never Docker. Exported so the benchmark (bench/bundle.ts) builds exactly this.
 */
export const connectorBundling: BundlingOptions = {
  format: OutputFormat.ESM,
  target: 'node22',
  // ESM entry points first: they tree-shake, the CommonJS ones do not.
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  bundleAwsSDK: true,
  externalModules: [],
  forceDockerBundling: false,
  // Licence comments of the bundled packages are kept at the end of the bundle by default; Lambda
  // never shows them and the repository's lock file already names every package.
  esbuildArgs: { '--legal-comments': 'none' },
};

export interface ConnectorFunctionProps {
  /** Handler file, relative to the repository root (as in `functions/routes.ts`). */
  readonly entry: string;
  /** Exported handler name in `entry`. */
  readonly handlerExport: string;
  readonly description: string;
  /** @default Duration.seconds(30) */
  readonly timeout?: Duration;
  /** @default 512 */
  readonly memorySize?: number;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /**
   * Removal policy of the function's log group.
   * @default RemovalPolicy.DESTROY (logs follow the function; retention bounds the cost while it lives)
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  /** Settings passed as env vars; the binders add the resource names. @default {} */
  readonly environment?: Record<string, string>;
  /** Anything else of `NodejsFunction` to override, applied last. @default - none */
  readonly functionProps?: Partial<NodejsFunctionProps>;
}

/**
 * The connector's Lambda defaults in one place: Node.js 24 on arm64, an ESM bundle built by the
 * local esbuild (never Docker), minified with source maps enabled at run time, the AWS SDK bundled
 * (the pinned clients, not whatever the runtime ships), an explicit log group with retention and a
 * role of its own that can write only to that log group until a binder grants more.
 */
export class ConnectorFunction extends NodejsFunction {
  /** The function's own log group (the function writes nowhere else). */
  readonly functionLogGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ConnectorFunctionProps) {
    const logGroup = new logs.LogGroup(scope, `${id}LogGroup`, {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.DESTROY,
    });
    // A role of our own instead of AWSLambdaBasicExecutionRole, whose log permissions cover every
    // log group of the account.
    const role = new iam.Role(scope, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${id}`,
    });
    logGroup.grantWrite(role);
    super(scope, id, {
      entry: fileURLToPath(new URL(props.entry, new URL('..', import.meta.url))),
      handler: props.handlerExport,
      description: props.description,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: fileURLToPath(new URL('../package-lock.json', import.meta.url)),
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      timeout: props.timeout ?? Duration.seconds(30),
      memorySize: props.memorySize ?? 512,
      logGroup,
      role,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      bundling: connectorBundling,
      ...props.functionProps,
    });
    this.functionLogGroup = logGroup;
    const source: HandlerSource = { entry: props.entry, handlerExport: props.handlerExport };
    (this.node.defaultChild as lambda.CfnFunction).addMetadata(HANDLER_SOURCE_METADATA, source);
  }
}

/** The connector's state its functions bind, and the one source they publish with. */
export interface ConnectorStateBinding {
  readonly table: dynamodb.ITable;
  readonly eventBus: events.IEventBus;
  readonly tokenSecret: secretsmanager.ISecret;
  /**
   * The customer managed key an existing token secret is encrypted with (config
   * `tokenSecret.kmsKeyArn`): the functions that read the token may decrypt with it. @default - none
   */
  readonly tokenSecretKmsKeyArn?: string;
  /** The connector's outbound source (the bus binding's `source`). */
  readonly outboundSource: string;
}

/** What every function of the connector is built with, beside its own entry in `functions/routes.ts`. */
export interface ConnectorFunctionDefaults {
  /** The settings as env vars (connector-environment.ts); each function adds its own. */
  readonly environment: Record<string, string>;
  readonly logRetention: logs.RetentionDays;
  readonly state: ConnectorStateBinding;
}

/** A function that calls the service: the table as its entry declares, the bus and the token secret. */
export function bindConnectorState(
  fn: lambda.Function,
  access: TableAccess,
  state: ConnectorStateBinding,
): void {
  bindTable(fn, { table: state.table, ...tableAccessOf(access) });
  bindBus(fn, { eventBus: state.eventBus, source: state.outboundSource });
  bindSecret(fn, {
    secret: state.tokenSecret,
    ...(state.tokenSecretKmsKeyArn ? { kmsKeyArn: state.tokenSecretKmsKeyArn } : {}),
  });
}

/** The table access of an entry of `functions/routes.ts`, without its other fields. */
export function tableAccessOf(access: TableAccess): TableAccess {
  return {
    tableActions: access.tableActions,
    ...(access.queriesTrialIndex ? { queriesTrialIndex: true } : {}),
    ...(access.queriesDriftIndex ? { queriesDriftIndex: true } : {}),
  };
}

export interface TableBinding extends TableAccess {
  readonly table: dynamodb.ITable;
}

/**
 * Grants exactly the DynamoDB actions the function uses (`functions/routes.ts` declares them; the
 * local run of test/local/iam/grants-from-use.test.ts fails on one its calls never used, or on a
 * call none allows) on the connector table, and `dynamodb:Query` on the trial and drift indexes
 * only to the function that queries them (an index takes no other item action); sets TABLE_NAME.
 * No Scan, no Batch* and no DescribeTable: the store never uses them.
 */
export function bindTable(
  fn: lambda.Function,
  { table, tableActions, queriesTrialIndex, queriesDriftIndex }: TableBinding,
): void {
  const indexArns = [
    ...(queriesTrialIndex ? [`${table.tableArn}/index/${TRIAL_INDEX_NAME}`] : []),
    ...(queriesDriftIndex ? [`${table.tableArn}/index/${DRIFT_INDEX_NAME}`] : []),
  ];
  iam.Grant.addToPrincipal({
    grantee: fn,
    actions: tableActions.map((action) => `dynamodb:${action}`),
    resourceArns: [table.tableArn],
  });
  if (indexArns.length > 0) {
    iam.Grant.addToPrincipal({ grantee: fn, actions: ['dynamodb:Query'], resourceArns: indexArns });
  }
  if (table.encryptionKey) {
    const writes = tableActions.some((action) => action !== 'GetItem' && action !== 'Query');
    if (writes) table.encryptionKey.grantEncryptDecrypt(fn);
    else table.encryptionKey.grantDecrypt(fn);
  }
  fn.addEnvironment('TABLE_NAME', table.tableName);
}

export interface BusBinding {
  readonly eventBus: events.IEventBus;
  /** The only `source` the function may publish with (the connector's outbound source). */
  readonly source: string;
}

/**
 * Allows PutEvents on this bus only, and only for events of `source` (the `events:source`
 * condition key: EventBridge user guide, "Using IAM policy conditions in Amazon EventBridge"), so
 * a function cannot publish as the partner's inbound source; sets EVENT_BUS_NAME.
 *
 * `events:source` is a multivalued key (the Service Authorization Reference types it
 * `ArrayOfString`: one PutEvents call carries the sources of all its entries), and "multivalued
 * context keys require a condition set operator" (IAM user guide, "Single-valued vs. multivalued
 * context keys"): a plain `StringEquals` on it matches no request, so the grant allowed nothing
 * (found by the local runtime's IAM enforcement, local/iam/). `ForAllValues:StringEquals` is what
 * the EventBridge user guide's own example uses ("Example policy: Send events to a custom bus in a
 * different account"); since ForAllValues also holds when the key is absent, `Null: false` requires
 * it (PutEvents always names a source per entry).
 */
export function bindBus(fn: lambda.Function, { eventBus, source }: BusBinding): void {
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['events:PutEvents'],
      resources: [eventBus.eventBusArn],
      conditions: {
        'ForAllValues:StringEquals': { 'events:source': source },
        Null: { 'events:source': 'false' },
      },
    }),
  );
  fn.addEnvironment('EVENT_BUS_NAME', eventBus.eventBusName);
}

export interface SecretBinding {
  readonly secret: secretsmanager.ISecret;
  /** The customer managed key the secret is encrypted with, when `secret` does not carry it. @default - none */
  readonly kmsKeyArn?: string;
}

/**
 * Allows reading this secret only (and, for a secret under a customer managed key, decrypting
 * with that key through Secrets Manager only) and sets TOKEN_SECRET_ID to its ARN (imported
 * secrets: its name). The token itself never enters the template or the environment: the function reads it at
 * run time, cached.
 */
export function bindSecret(fn: lambda.Function, { secret, kmsKeyArn }: SecretBinding): void {
  // GetSecretValue only (what the functions call, through Powertools' SecretsProvider); the CDK's
  // grantRead would add DescribeSecret. A secret imported by name has no full ARN: Secrets Manager
  // appends "-" and six random characters to a secret's name in its ARN, hence the `-??????`
  // (Secrets Manager user guide, "Permissions policy examples", "Wildcard").
  const resource =
    secret.secretFullArn ??
    Stack.of(fn).formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${secret.secretName}-??????`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
  iam.Grant.addToPrincipal({
    grantee: fn,
    actions: ['secretsmanager:GetSecretValue'],
    resourceArns: [resource],
  });
  secret.encryptionKey?.grantDecrypt(fn);
  if (kmsKeyArn) {
    // GetSecretValue of a secret encrypted with a customer managed key needs kms:Decrypt on that key
    // by the caller, which Secrets Manager calls on its behalf (Secrets Manager user guide, "Secret
    // encryption and decryption in AWS Secrets Manager", https://docs.aws.amazon.com/secretsmanager/latest/userguide/security-encryption.html,
    // "Permissions for the KMS key"). kms:ViaService limits the grant to requests Secrets Manager
    // makes in this region (AWS KMS developer guide, "kms:ViaService",
    // https://docs.aws.amazon.com/kms/latest/developerguide/conditions-kms.html#conditions-kms-via-service,
    // which lists Secrets Manager; AWS's own AWSSecretsManagerClientReadOnlyAccess policy grants
    // kms:Decrypt under kms:ViaService secretsmanager.*.amazonaws.com): the role cannot decrypt
    // anything else with the key directly.
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['kms:Decrypt'],
        resources: [kmsKeyArn],
        conditions: {
          StringEquals: { 'kms:ViaService': `secretsmanager.${Stack.of(fn).region}.amazonaws.com` },
        },
      }),
    );
  }
  // A secret imported by name has only a partial ARN (no random suffix), which GetSecretValue does
  // not take as an ARN; its name resolves the same secret.
  const secretId = secret.secretFullArn ?? secret.secretName;
  fn.addEnvironment('TOKEN_SECRET_ID', secretId);
}
