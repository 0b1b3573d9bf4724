import type { ConnectorConfig } from '#lib/config.ts';
import type { LocalClock } from '../aws/clock.ts';
import type { DeliveryModel } from '../aws/delivery-model.ts';
import { LOCAL_ACCOUNT_ID, type LocalFunction } from '../aws/lambda.ts';
import { TemplateModel } from '../cloudformation.ts';
import { type DeploymentAccess, deployLocally, type LocalDeployment } from '../deployment.ts';
import { InProcessFunctionHost } from '../function-host.ts';
import { labelFunctions } from '../handler-output.ts';
import { mulberry32 } from '../random.ts';
import type { LocalRuntimeOptions } from '../runtime.ts';
import {
  LOCAL_REGION,
  localConnectorConfig,
  SERVICE_PLACEHOLDER,
  synthesizeLocalTemplates,
} from '../template.ts';
import type { LocalServices } from './services.ts';

/**
 * The connector's own template, as `cdk synth` makes it, synthesized for this machine and deployed
 * on the local services (deployment.ts), its functions run in this process (function-host.ts).
 */

export interface ConnectorTemplate {
  /**
   * The example config with the service at the sandbox (or at the service proxy); for a cloud
   * assembly, with the partner name, sources and regions its functions are given.
   */
  readonly config: ConnectorConfig;
  readonly model: TemplateModel;
  /** A function's own bundle, for a cloud assembly's functions (undefined: the project's bundle). */
  readonly ownBundle?: (fn: Omit<LocalFunction, 'handler'>) => string | undefined;
  /** What the start-up says about the template (a cloud assembly: what was changed to run it here). */
  readonly notes?: readonly string[];
}

/**
 * The app, synthesized for this machine: the example config, with the service at
 * SERVICE_PLACEHOLDER in the template (one synthesis serves every run: template.ts) and at the
 * sandbox (or its proxy) in the config the runtime reports.
 */
export async function synthesizeConnectorTemplate(
  services: Pick<LocalServices, 'serviceUrl' | 'endpoint'>,
  options: Pick<
    LocalRuntimeOptions,
    'provisioningRegions' | 'config' | 'connector' | 'customize' | 'editTemplates'
  >,
): Promise<ConnectorTemplate> {
  const configFor = (url: string) =>
    localConnectorConfig({
      sandboxUrl: url,
      ...(options.provisioningRegions ? { regions: options.provisioningRegions } : {}),
      ...(options.config ? { overrides: options.config } : {}),
    });
  const config = configFor(services.serviceUrl);
  const synthesized = await synthesizeLocalTemplates(
    configFor(SERVICE_PLACEHOLDER),
    options.connector,
    options.customize,
  );
  // The assembly as synthesized, then as a test edits it (a copy: the synthesis cache keeps its own).
  const stacks = options.editTemplates ? structuredClone(synthesized) : synthesized;
  options.editTemplates?.(stacks);
  const model = new TemplateModel(stacks, {
    region: LOCAL_REGION,
    account: LOCAL_ACCOUNT_ID,
    sqsEndpoint: services.endpoint.url,
  });
  return { config, model };
}

/**
 * Deploys the template with each function run in this process under `runtimeVariables`, the
 * service's placeholder address replaced by `serviceUrl`; the deployment's stop is pushed onto
 * `cleanup`.
 */
export function deployConnectorTemplate(
  model: TemplateModel,
  setup: {
    readonly clock: LocalClock;
    readonly delivery: DeliveryModel;
    readonly serviceUrl: string;
    readonly runtimeVariables: (fn: Omit<LocalFunction, 'handler'>) => Record<string, string>;
    /** A function's own bundle (a cloud assembly's), else the project's. */
    readonly ownBundle?: (fn: Omit<LocalFunction, 'handler'>) => string | undefined;
    /** The IAM checks of rules, pipes and event source mappings (local/iam/). */
    readonly access?: DeploymentAccess;
  },
  options: Pick<
    LocalRuntimeOptions,
    'functionModules' | 'dependencyOptions' | 'replayKeepsIds' | 'onActivity' | 'faults'
  >,
  cleanup: Array<() => Promise<void>>,
): LocalDeployment {
  const host = new InProcessFunctionHost(
    setup.runtimeVariables,
    options.functionModules,
    options.dependencyOptions,
    setup.ownBundle,
  );
  const deployed = deployLocally(model, {
    region: LOCAL_REGION,
    clock: setup.clock,
    delivery: setup.delivery,
    host,
    environmentSubstitutions: [[SERVICE_PLACEHOLDER, setup.serviceUrl]],
    ...(setup.access ? { access: setup.access } : {}),
    ...(options.replayKeepsIds === undefined ? {} : { replayKeepsIds: options.replayKeepsIds }),
    ...(options.onActivity ? { onActivity: options.onActivity } : {}),
    ...(options.faults
      ? {
          faults: {
            lostDeleteRate: options.faults.lostDeleteRate,
            random: mulberry32(options.faults.seed ?? 1),
          },
        }
      : {}),
  });
  cleanup.push(() => deployed.stop());
  // Log lines name a function as a reader knows it (local/handler-output.ts).
  labelFunctions(
    [...deployed.functions.values()].map(
      (fn) => [fn.name, fn.environment['POWERTOOLS_SERVICE_NAME'] ?? fn.logicalId] as const,
    ),
  );
  return deployed;
}
