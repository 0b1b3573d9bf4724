import { createHash } from 'node:crypto';
import type { ConnectorConfig } from './config.ts';

/**
 * Every physical name of one deployment, made from its deployment name and stage, so that any
 * number of partners × stages deploy side by side in one account and region without sharing a
 * name, an export or a metric. One place: the stacks, the State stack's resources, the Service
 * stack's imports of them (by name: no cross-stack export), the alarms, the dashboard, the metric
 * namespace and the export names all read it.
 *
 * Resources without a name of their own (queues, functions, log groups, roles, pipes, rules) get
 * CloudFormation's generated name, which starts with the stack name ("<stack name>-<logical id>-
 * <random>": AWS CloudFormation user guide, "Name type"), so they carry partner and stage too.
 */

export interface DeploymentIdentity {
  /** The name physical names carry (config `deploymentName`, else `partnerName`). */
  readonly deploymentName: string;
  /** `dev`, `prod`, … (config `stage`). */
  readonly stage: string;
}

export interface DeploymentNames {
  /** `<deploymentName>-<stage>`: what every name below carries. */
  readonly id: string;
  readonly stateStack: string;
  readonly serviceStack: string;
  /** The bus created when the config names none. */
  readonly eventBus: string;
  /** The token secret created when the config names none. */
  readonly tokenSecret: string;
  /** The table created when the config adopts none. */
  readonly table: string;
  readonly inboundArchive: string;
  readonly outboundArchive: string;
  readonly dashboard: string;
  /**
   * The functions' Powertools namespace (POWERTOOLS_METRICS_NAMESPACE), which the alarms and the
   * dashboard read: one namespace per deployment (docs/deploy.md, "Stages").
   */
  readonly metricsNamespace: string;
  /** Alarm `id` → its name. */
  alarm(id: string): string;
  /** Output key → its export name. */
  exportOf(outputKey: string): string;
}

/** EventBridge archive names: 1–48 of `[.\-_A-Za-z0-9]` (EventBridge API reference, CreateArchive). */
const ARCHIVE_NAME_MAX = 48;

export function deploymentNames({ deploymentName, stage }: DeploymentIdentity): DeploymentNames {
  const id = `${deploymentName}-${stage}`;
  const prefix = `WorkforceConnector-${id}`;
  return {
    id,
    stateStack: `${prefix}-State`,
    serviceStack: `${prefix}-Service`,
    eventBus: `workforce-connector-${id}`,
    tokenSecret: `workforce-connector/${id}/token`,
    table: `workforce-connector-${id}`,
    inboundArchive: boundedName(`wfc-${id}`, '-inbound', ARCHIVE_NAME_MAX),
    outboundArchive: boundedName(`wfc-${id}`, '-outbound', ARCHIVE_NAME_MAX),
    dashboard: prefix,
    metricsNamespace: `WorkforceConnector/${id}`,
    alarm: (alarmId) => `${prefix}-${alarmId}`,
    exportOf: (outputKey) => `${prefix}-${outputKey}`,
  };
}

/**
 * `base` + `suffix` when it fits in `max`; otherwise `base` cut short with 8 characters of its hash
 * in place of the cut, so two long deployment names that share a beginning still differ.
 */
export function boundedName(base: string, suffix: string, max: number): string {
  if (base.length + suffix.length <= max) return `${base}${suffix}`;
  const hash = createHash('sha256').update(base).digest('hex').slice(0, 8);
  return `${base.slice(0, max - suffix.length - hash.length - 1)}-${hash}${suffix}`;
}

/** What the two stacks call the state, whether created or adopted. */
export interface ConnectorStateNames {
  readonly tableName: string;
  readonly eventBusName: string;
  readonly tokenSecretName: string;
}

export function stateNamesOf(
  config: ConnectorConfig,
  names: DeploymentNames = namesOf(config),
): ConnectorStateNames {
  return {
    tableName: config.state.existingTableName ?? names.table,
    eventBusName:
      'existingBusName' in config.eventBus
        ? config.eventBus.existingBusName
        : (config.eventBus.name ?? names.eventBus),
    tokenSecretName:
      'existingSecretName' in config.tokenSecret
        ? config.tokenSecret.existingSecretName
        : (config.tokenSecret.name ?? names.tokenSecret),
  };
}

export function namesOf(config: ConnectorConfig): DeploymentNames {
  return deploymentNames({
    deploymentName: config.deploymentName ?? config.partnerName,
    stage: config.stage,
  });
}
