import { type Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { tableDefinition } from '#functions/store/table.ts';

/**
 * The connector's stateful resources: the table, the bus, the token secret and the archive of
 * inbound events. They live in a construct (and, in `bin/app.ts`, a stack) of their own so the
 * functions can be redeployed, renamed or torn down without touching data.
 */

export interface ConnectorTableProps {
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** Overrides applied last (except keys, indexes and TTL, which `tableDefinition` owns). @default - none */
  readonly tableProps?: Partial<dynamodb.TableProps>;
}

/** The table from `functions/store/table.ts`: on demand, PITR, TTL, the trial index. */
export function createConnectorTable(
  scope: Construct,
  id: string,
  props: ConnectorTableProps = {},
): dynamodb.Table {
  const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
  const table = new dynamodb.Table(scope, id, {
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: tableDefinition.pointInTimeRecovery },
    deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
    removalPolicy,
    ...props.tableProps,
    partitionKey: {
      name: tableDefinition.partitionKey.name,
      type: attributeType(tableDefinition.partitionKey.type),
    },
    sortKey: { name: tableDefinition.sortKey.name, type: attributeType(tableDefinition.sortKey.type) },
    timeToLiveAttribute: tableDefinition.ttlAttribute,
  });
  for (const index of tableDefinition.globalSecondaryIndexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.indexName,
      partitionKey: { name: index.partitionKey.name, type: attributeType(index.partitionKey.type) },
      sortKey: { name: index.sortKey.name, type: attributeType(index.sortKey.type) },
      projectionType: dynamodb.ProjectionType.INCLUDE,
      nonKeyAttributes: [...index.projection.nonKeyAttributes],
    });
  }
  return table;
}

function attributeType(type: 'S' | 'N' | 'B'): dynamodb.AttributeType {
  if (type === 'N') return dynamodb.AttributeType.NUMBER;
  if (type === 'B') return dynamodb.AttributeType.BINARY;
  return dynamodb.AttributeType.STRING;
}

/**
 * The bearer-token secret. CloudFormation cannot create a secret without a value, so it starts
 * with a random placeholder that the service rejects: records wait (TOKEN_REJECTED, their
 * visibility extended, no attempt counted) until the operator stores the real token with
 * `aws secretsmanager put-secret-value` (docs/deploy.md), then apply.
 */
export function createTokenSecret(
  scope: Construct,
  id: string,
  props: { secretName?: string; removalPolicy?: RemovalPolicy } = {},
): secretsmanager.Secret {
  return new secretsmanager.Secret(scope, id, {
    ...(props.secretName ? { secretName: props.secretName } : {}),
    description: 'Bearer token of the workforce scheduling service partner API (set with put-secret-value)',
    removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
  });
}

export interface ConnectorStateProps {
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** Import an existing bus instead of creating one. @default - a bus is created */
  readonly existingEventBusObj?: events.IEventBus;
  /** @default - a generated name */
  readonly eventBusProps?: events.EventBusProps;
  /** @default - a table is created from `tableDefinition` */
  readonly existingTableObj?: dynamodb.ITable;
  /** @default - none */
  readonly tableProps?: Partial<dynamodb.TableProps>;
  /** Import an existing secret (e.g. `Secret.fromSecretNameV2`). @default - a secret is created */
  readonly existingTokenSecretObj?: secretsmanager.ISecret;
  /** @default - a generated name */
  readonly tokenSecretProps?: { secretName?: string };
  /** Archive the bus's inbound events (for `npm run replay`). @default - no archive */
  readonly archive?: {
    readonly inboundSource: string;
    readonly retention: Duration;
    readonly archiveName?: string;
  };
  /**
   * Archive the connector's result events too (outbound source), for a replay to one consumer rule
   * after it lost some (docs/deploy.md, "Outbound archive"). @default - no outbound archive
   */
  readonly outboundArchive?: {
    readonly outboundSource: string;
    readonly retention: Duration;
    readonly archiveName?: string;
  };
  /** An archive made elsewhere (the stateful stack's). @default - none */
  readonly existingArchive?: ConnectorArchive;
}

/** What the tools and outputs need of the inbound archive. */
export interface ConnectorArchive {
  readonly archiveName: string;
  readonly archiveArn: string;
}

export class ConnectorState extends Construct {
  readonly table: dynamodb.ITable;
  readonly eventBus: events.IEventBus;
  readonly tokenSecret: secretsmanager.ISecret;
  readonly archive?: ConnectorArchive;
  readonly outboundArchive?: ConnectorArchive;

  constructor(scope: Construct, id: string, props: ConnectorStateProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.table =
      props.existingTableObj ??
      createConnectorTable(this, 'Table', {
        removalPolicy,
        ...(props.tableProps ? { tableProps: props.tableProps } : {}),
      });
    this.eventBus =
      props.existingEventBusObj ?? createEventBus(this, 'EventBus', props.eventBusProps, removalPolicy);
    this.tokenSecret =
      props.existingTokenSecretObj ??
      createTokenSecret(this, 'TokenSecret', { ...props.tokenSecretProps, removalPolicy });
    if (props.existingArchive) this.archive = props.existingArchive;
    else if (props.archive) {
      this.archive = createSourceArchive(this, 'InboundArchive', this.eventBus, {
        source: props.archive.inboundSource,
        description: `Inbound ${props.archive.inboundSource} events, for replays after a fix`,
        retention: props.archive.retention,
        removalPolicy,
        ...(props.archive.archiveName ? { archiveName: props.archive.archiveName } : {}),
      });
    }
    if (props.outboundArchive) {
      this.outboundArchive = createSourceArchive(this, 'OutboundArchive', this.eventBus, {
        source: props.outboundArchive.outboundSource,
        description: `Outbound ${props.outboundArchive.outboundSource} events (results, SyncFailed), for replays to one consumer rule`,
        retention: props.outboundArchive.retention,
        removalPolicy,
        ...(props.outboundArchive.archiveName ? { archiveName: props.outboundArchive.archiveName } : {}),
      });
    }
  }
}

/**
 * An EventBridge archive of one source's events on the bus:
 * - the inbound events (their source only: the connector's own results are not replayed to it).
 *   Replays go back to this bus, to the route rules `npm run replay` names. "Replayed events are
 *   not sent to an archive" (EventBridge API reference, CreateArchive).
 * - the connector's own result events (the outbound source: results, SyncFailed, SyncSkipped, the
 *   watches' announcements). A consumer whose rule was broken or missing gets them again by a
 *   replay to this bus limited to its rule (`FilterArns`: "A list of ARNs for rules to replay
 *   events to", EventBridge API reference, ReplayDestination). The connector's own rules take only
 *   the inbound source, so a replayed result never runs the connector again.
 */
export function createSourceArchive(
  scope: Construct,
  id: string,
  bus: events.IEventBus,
  props: {
    source: string;
    description: string;
    retention: Duration;
    removalPolicy: RemovalPolicy;
    archiveName?: string;
  },
): events.Archive {
  const archive = new events.Archive(scope, id, {
    ...(props.archiveName ? { archiveName: props.archiveName } : {}),
    sourceEventBus: bus,
    description: props.description,
    eventPattern: { source: [props.source] },
    retention: props.retention,
  });
  archive.applyRemovalPolicy(props.removalPolicy);
  return archive;
}

function createEventBus(
  scope: Construct,
  id: string,
  props: events.EventBusProps | undefined,
  removalPolicy: RemovalPolicy,
): events.EventBus {
  const bus = new events.EventBus(scope, id, {
    description: 'Partner domain events in, connector result events out',
    ...props,
  });
  bus.applyRemovalPolicy(removalPolicy);
  return bus;
}
