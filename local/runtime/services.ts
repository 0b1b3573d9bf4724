import { type RunningSandbox, startSandbox } from '#sandbox/server.ts';
import type { BusEvent } from '../aws/event-bus.ts';
import { eventsApi } from '../aws/events-api.ts';
import type { LocalSecrets } from '../aws/secrets-api.ts';
import { sqsApi } from '../aws/sqs-api.ts';
import { type AwsEndpoint, type ControlRoute, type Operation, startAwsEndpoint } from '../aws-endpoint.ts';
import type { LocalDeployment } from '../deployment.ts';
import { type DynaliteServer, startDynalite } from '../dynalite.ts';
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
  /** The endpoint's AWS operations, from now on (it answers none before). */
  serve(operations: Record<string, Operation>): void;
  /** `/_local/*` routes the endpoint answers from now on. */
  addControl(routes: readonly ControlRoute[]): void;
}

/** Starts each server, pushing its close onto `cleanup` as soon as it listens. */
export async function startServices(
  ports: LocalPorts,
  sandboxToken: string,
  options: Pick<LocalRuntimeOptions, 'rateLimit' | 'sandboxStrict' | 'config' | 'serviceProxy'>,
  cleanup: Array<() => Promise<void>>,
): Promise<LocalServices> {
  const sandbox = await startSandbox({
    port: ports.sandbox,
    token: sandboxToken,
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...(options.sandboxStrict ? { strict: true } : {}),
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
  const control: ControlRoute[] = [];
  const endpoint = await startAwsEndpoint({
    port: ports.events,
    operations: () => operations,
    control: () => control,
  });
  cleanup.push(() => endpoint.close());

  const proxy = options.serviceProxy ? await options.serviceProxy(sandbox.url) : undefined;
  if (proxy) cleanup.push(() => proxy.close());
  return {
    sandbox,
    dynamo,
    endpoint,
    serviceUrl: proxy?.url ?? sandbox.url,
    serve: (next) => {
      operations = next;
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
): Record<string, Operation> {
  return {
    ...eventsApi({ region: LOCAL_REGION, buses: deployed.buses, archives: deployed.archives, onAccepted }),
    ...sqsApi({ queues: () => deployed.queues.values() }),
    ...secrets.operations(),
  };
}
