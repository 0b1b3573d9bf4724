import type { ConnectorConfig } from '#lib/config.ts';
import { type RunningSandbox, startSandbox } from '#sandbox/server.ts';
import type { BusEvent } from '../aws/event-bus.ts';
import { eventsApi } from '../aws/events-api.ts';
import { LOCAL_ACCOUNT_ID } from '../aws/lambda.ts';
import type { PutEventsFaults } from '../aws/put-events-faults.ts';
import type { LocalSecrets } from '../aws/secrets-api.ts';
import { sqsApi } from '../aws/sqs-api.ts';
import {
  type AwsEndpoint,
  type ControlRoute,
  type Operation,
  type RequestGuard,
  startAwsEndpoint,
} from '../aws-endpoint.ts';
import type { LocalDeployment } from '../deployment.ts';
import { type DynaliteServer, startDynalite } from '../dynalite.ts';
import type { IamEnforcement } from '../iam/enforcement.ts';
import type { ResourceNames } from '../iam/requests.ts';
import type { LocalPorts, LocalRuntimeOptions } from '../runtime.ts';
import { LOCAL_REGION } from '../template.ts';

/**
 * The servers the connector runs against on this machine: the sandbox (the service), dynalite
 * (DynamoDB), and one endpoint for EventBridge, SQS, Secrets Manager and `/_local/*`, with the
 * optional proxy the functions reach the service through.
 */

export interface LocalServices {
  readonly sandbox: RunningSandbox;
  readonly dynamo: DynaliteServer;
  readonly endpoint: AwsEndpoint;
  /** Where the functions reach the service: the proxy in front of the sandbox, or the sandbox. */
  readonly serviceUrl: string;
  /** The endpoint's AWS operations, from now on (it answers none before), each authorized by `guard`. */
  serve(operations: Record<string, Operation>, guard?: RequestGuard): void;
  /** `/_local/*` routes the endpoint answers from now on. */
  addControl(routes: readonly ControlRoute[]): void;
}

/** Starts each server, pushing its close onto `cleanup` as soon as it listens. */
export async function startServices(
  ports: LocalPorts,
  sandboxToken: string,
  options: Pick<LocalRuntimeOptions, 'rateLimit' | 'sandboxLenient' | 'config' | 'serviceProxy'>,
  cleanup: Array<() => Promise<void>>,
): Promise<LocalServices> {
  const sandbox = await startSandbox({
    port: ports.sandbox,
    token: sandboxToken,
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...(options.sandboxLenient ? { lenient: options.sandboxLenient } : {}),
    ...(typeof options.config?.['partnerName'] === 'string'
      ? { partner: options.config['partnerName'] }
      : {}),
  });
  cleanup.push(() => sandbox.close());
  const dynamo = await startDynalite({ port: ports.dynamo });
  cleanup.push(() => dynamo.close());

  // The endpoint listens first (queue URLs are made on its address); its operations exist once the
  // template is deployed.
  let operations: Record<string, Operation> = {};
  let guard: RequestGuard | undefined;
  const control: ControlRoute[] = [];
  const endpoint = await startAwsEndpoint({
    port: ports.events,
    operations: () => operations,
    control: () => control,
    authorize: () => guard,
  });
  cleanup.push(() => endpoint.close());

  const proxy = options.serviceProxy ? await options.serviceProxy(sandbox.url) : undefined;
  if (proxy) cleanup.push(() => proxy.close());
  return {
    sandbox,
    dynamo,
    endpoint,
    serviceUrl: proxy?.url ?? sandbox.url,
    serve: (next, nextGuard) => {
      operations = next;
      guard = nextGuard;
    },
    addControl: (routes) => {
      control.push(...routes);
    },
  };
}

/** What the AWS endpoint answers: EventBridge, SQS and Secrets Manager over the deployed template. */
export function awsOperations(
  deployed: LocalDeployment,
  secrets: LocalSecrets,
  onAccepted: (event: BusEvent) => void,
  faults: PutEventsFaults,
): Record<string, Operation> {
  return {
    ...eventsApi({
      region: LOCAL_REGION,
      buses: deployed.buses,
      archives: deployed.archives,
      onAccepted,
      faults,
    }),
    ...sqsApi({ queues: () => deployed.queues.values() }),
    ...secrets.operations(),
  };
}

/**
 * The local resources a request names, as the IAM enforcement resolves them to ARNs; a secret's
 * customer managed key is the template's (`KmsKeyId`), or for the partner's existing secret the
 * key the config names (`tokenSecret.kmsKeyArn`).
 */
export function resourceNames(
  deployed: LocalDeployment,
  secrets: LocalSecrets,
  iam: IamEnforcement,
  config: ConnectorConfig,
): ResourceNames {
  const created = new Set(deployed.secrets.map((secret) => secret.arn));
  const existingSecretKey = 'kmsKeyArn' in config.tokenSecret ? config.tokenSecret.kmsKeyArn : undefined;
  return {
    region: LOCAL_REGION,
    account: LOCAL_ACCOUNT_ID,
    queueArn: (urlOrName) => deployed.queueByUrlOrName(urlOrName)?.arn,
    secret: (nameOrArn) => {
      const secret = secrets.describe(nameOrArn);
      if (!secret) return undefined;
      const keyArn = created.has(secret.arn)
        ? iam.iam.template.secretKeys.get(secret.arn)
        : existingSecretKey;
      return { arn: secret.arn, ...(keyArn ? { keyArn } : {}) };
    },
  };
}
