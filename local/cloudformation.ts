import { createHash } from 'node:crypto';
import type { CfnResource, SynthesizedStack } from './template.ts';

/**
 * The synthesized templates as the local runtime reads them: every resource with a local physical
 * name and ARN, and CloudFormation's intrinsic functions resolved against them ("Intrinsic function
 * reference" and "Pseudo parameters reference" of the CloudFormation user guide; `Ref` and
 * `Fn::GetAtt` return what each resource type's "Return values" section says).
 *
 * Every resource type must be known here: either modeled (its properties are read, and a property
 * this runtime does not know stops it) or acknowledged as not reproduced locally (encryption, logs,
 * alarms; listed in docs/local.md). IAM roles, policies and the policies of resources are modeled:
 * local/iam/ enforces them. Anything else stops the runtime at start-up with a
 * message naming the resource, so local and deployed cannot diverge in silence.
 */

export interface TemplateResource {
  readonly stackName: string;
  readonly logicalId: string;
  readonly type: string;
  readonly properties: Readonly<Record<string, unknown>>;
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Local physical name (what `Ref` gives for most types). */
  readonly name: string;
  readonly arn: string;
}

export interface ResourceTypeModel {
  /** Properties the local runtime reads; any other property stops it. `'*'` = not reproduced. */
  readonly properties: readonly string[] | '*';
  /** Why a type is not reproduced locally (docs/local.md lists these). */
  readonly notReproduced?: string;
}

/**
 * What the local runtime does with each resource type. Modeled types name the properties it
 * interprets; the rest are acknowledged with the reason they do not matter to a local run.
 */
export const RESOURCE_TYPES: Readonly<Record<string, ResourceTypeModel>> = {
  'AWS::SQS::Queue': {
    properties: [
      'QueueName',
      'FifoQueue',
      'ContentBasedDeduplication',
      'DeduplicationScope',
      'FifoThroughputLimit',
      'VisibilityTimeout',
      'MessageRetentionPeriod',
      'RedrivePolicy',
      'SqsManagedSseEnabled',
      'KmsMasterKeyId',
      'Tags',
    ],
  },
  'AWS::Events::EventBus': { properties: ['Name', 'Description', 'Tags'] },
  'AWS::Events::Rule': {
    properties: [
      'Name',
      'Description',
      'EventBusName',
      'EventPattern',
      'ScheduleExpression',
      'State',
      'Targets',
    ],
  },
  'AWS::Events::Archive': {
    properties: [
      'ArchiveName',
      'Description',
      'SourceArn',
      'EventPattern',
      'RetentionDays',
      'KmsKeyIdentifier',
    ],
  },
  'AWS::Pipes::Pipe': {
    properties: [
      'Name',
      'Description',
      'RoleArn',
      'Source',
      'SourceParameters',
      'Target',
      'TargetParameters',
      'DesiredState',
      'LogConfiguration',
      'Tags',
    ],
  },
  'AWS::Lambda::Function': {
    properties: [
      'FunctionName',
      'Description',
      'Handler',
      'Runtime',
      'Code',
      'Timeout',
      'MemorySize',
      'Environment',
      'Architectures',
      'Role',
      'LoggingConfig',
      'Tags',
    ],
  },
  'AWS::Lambda::EventSourceMapping': {
    properties: [
      'EventSourceArn',
      'FunctionName',
      'BatchSize',
      'FunctionResponseTypes',
      'ScalingConfig',
      'MaximumBatchingWindowInSeconds',
      'Enabled',
    ],
  },
  'AWS::DynamoDB::Table': {
    properties: [
      'TableName',
      'KeySchema',
      'AttributeDefinitions',
      'BillingMode',
      'GlobalSecondaryIndexes',
      'TimeToLiveSpecification',
      'PointInTimeRecoverySpecification',
      'DeletionProtectionEnabled',
      'SSESpecification',
      'Tags',
    ],
  },
  'AWS::SecretsManager::Secret': {
    properties: ['Name', 'Description', 'GenerateSecretString', 'KmsKeyId', 'Tags'],
  },
  // IAM and the policies of resources: read and enforced by local/iam/ (template-iam.ts). A property
  // the enforcement does not read (a permissions boundary, a group) stops the runtime like any other.
  'AWS::IAM::Role': {
    properties: [
      'AssumeRolePolicyDocument',
      'Description',
      'Policies',
      'ManagedPolicyArns',
      'RoleName',
      'MaxSessionDuration',
      'Tags',
    ],
  },
  'AWS::IAM::Policy': { properties: ['PolicyDocument', 'PolicyName', 'Roles'] },
  'AWS::SQS::QueuePolicy': { properties: ['PolicyDocument', 'Queues'] },
  'AWS::SNS::TopicPolicy': { properties: ['PolicyDocument', 'Topics'] },
  // Statements of a bus's resource policy (publishers of other accounts: lib/connector-publishers.ts).
  'AWS::Events::EventBusPolicy': { properties: ['EventBusName', 'StatementId', 'Statement'] },
  'AWS::Lambda::Permission': {
    properties: ['Action', 'FunctionName', 'Principal', 'SourceArn', 'SourceAccount'],
  },
  // The key policy is enforced (local/iam/); the encryption itself is not reproduced locally.
  'AWS::KMS::Key': {
    properties: [
      'Description',
      'EnableKeyRotation',
      'Enabled',
      'KeyPolicy',
      'KeySpec',
      'KeyUsage',
      'PendingWindowInDays',
      'Tags',
    ],
  },
  'AWS::Logs::LogGroup': { properties: '*', notReproduced: 'functions log to the terminal locally' },
  // Alarm topics: no notification is sent locally, but each alarm's action is authorized at start-up
  // against the topic's policy and its key's policy (local/iam/alarm-actions.ts).
  'AWS::SNS::Topic': { properties: ['DisplayName', 'KmsMasterKeyId', 'TopicName', 'Tags'] },
  'AWS::SNS::Subscription': { properties: '*', notReproduced: 'alarm notifications are not sent locally' },
  'AWS::CloudWatch::Alarm': {
    properties: '*',
    notReproduced:
      'CloudWatch metrics and alarms are not reproduced locally (their actions are authorized at start-up)',
  },
  // Composite alarms (lib/alarm-composites.ts): the only alarms with actions, authorized at start-up.
  'AWS::CloudWatch::CompositeAlarm': {
    properties: '*',
    notReproduced:
      'CloudWatch composite alarms are not reproduced locally (their actions are authorized at start-up)',
  },
  'AWS::CloudWatch::Dashboard': {
    properties: '*',
    notReproduced: 'CloudWatch dashboards are not reproduced locally',
  },
  'AWS::CDK::Metadata': { properties: '*', notReproduced: 'CDK usage metadata' },
};

const NAME_PROPERTY: Readonly<Record<string, string>> = {
  'AWS::SQS::Queue': 'QueueName',
  'AWS::Events::EventBus': 'Name',
  'AWS::Events::Rule': 'Name',
  'AWS::Events::Archive': 'ArchiveName',
  'AWS::Pipes::Pipe': 'Name',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::CloudWatch::Alarm': 'AlarmName',
  'AWS::CloudWatch::CompositeAlarm': 'AlarmName',
  'AWS::CloudWatch::Dashboard': 'DashboardName',
};

/** Longest physical name CloudFormation generates per type (SQS: 80 with `.fifo`; Lambda, pipes, rules: 64). */
const NAME_LIMIT: Readonly<Record<string, number>> = {
  'AWS::SQS::Queue': 80,
  'AWS::Lambda::Function': 64,
  'AWS::Pipes::Pipe': 64,
  'AWS::Events::Rule': 64,
  'AWS::Events::Archive': 48,
  'AWS::IAM::Role': 64,
};

export class TemplateModelError extends Error {
  constructor(message: string) {
    super(`the local runtime cannot run this template: ${message}`);
    this.name = 'TemplateModelError';
  }
}

export interface TemplateModelOptions {
  readonly region: string;
  readonly account: string;
  /** Base URL queue URLs are formed on (the local SQS endpoint). */
  readonly sqsEndpoint: string;
}

export class TemplateModel {
  readonly resources: readonly TemplateResource[];
  private readonly byStack = new Map<string, Map<string, TemplateResource>>();
  private readonly exports = new Map<string, { stackName: string; value: unknown }>();
  private readonly outputValues: Array<{ key: string; stackName: string; value: unknown }> = [];
  private readonly options: TemplateModelOptions;
  /** Generated names cut to their type's limit so far, by type: a second one gets a suffix. */
  private readonly cutNames = new Set<string>();

  constructor(stacks: readonly SynthesizedStack[], options: TemplateModelOptions) {
    this.options = options;
    const problems: string[] = [];
    const all: TemplateResource[] = [];
    for (const { stackName, template } of stacks) {
      if (template.Conditions && Object.keys(template.Conditions).length > 0) {
        problems.push(`${stackName}: template Conditions are not modeled`);
      }
      const resources = new Map<string, TemplateResource>();
      for (const [logicalId, resource] of Object.entries(template.Resources)) {
        const problem = checkResource(stackName, logicalId, resource);
        if (problem) problems.push(problem);
        const model = this.describe(stackName, logicalId, resource);
        resources.set(logicalId, model);
        all.push(model);
      }
      this.byStack.set(stackName, resources);
      for (const [key, output] of Object.entries(template.Outputs ?? {})) {
        this.outputValues.push({ key, stackName, value: output.Value });
        if (output.Export === undefined) continue;
        const exportName = this.resolve(output.Export.Name, stackName);
        if (typeof exportName === 'string') this.exports.set(exportName, { stackName, value: output.Value });
      }
    }
    if (problems.length > 0) throw new TemplateModelError(`\n  - ${problems.join('\n  - ')}`);
    this.resources = all;
  }

  /** Every stack output, by its key, resolved to the local values (what `describe-stacks` lists). */
  outputs(): Record<string, string> {
    return Object.fromEntries(
      this.outputValues.map(({ key, stackName, value }) => [key, String(this.resolve(value, stackName))]),
    );
  }

  ofType(type: string): TemplateResource[] {
    return this.resources.filter((resource) => resource.type === type);
  }

  /** The resource a `Ref`/`Fn::GetAtt` in a property points at (by logical id, in its stack). */
  referenced(value: unknown, stackName: string): TemplateResource | undefined {
    const ref = value as { Ref?: unknown; 'Fn::GetAtt'?: unknown; 'Fn::ImportValue'?: unknown };
    if (typeof ref?.Ref === 'string') return this.byStack.get(stackName)?.get(ref.Ref);
    if (Array.isArray(ref?.['Fn::GetAtt']))
      return this.byStack.get(stackName)?.get(ref['Fn::GetAtt'][0] as string);
    if (ref?.['Fn::ImportValue'] !== undefined) {
      const name = this.resolve(ref['Fn::ImportValue'], stackName);
      const exported = typeof name === 'string' ? this.exports.get(name) : undefined;
      return exported ? this.referenced(exported.value, exported.stackName) : undefined;
    }
    return undefined;
  }

  /** The resource whose ARN (or name) a resolved string is. */
  byArn(arn: string): TemplateResource | undefined {
    return this.resources.find((resource) => resource.arn === arn);
  }

  /** Resolves every intrinsic function and pseudo parameter in `value`. */
  resolve(value: unknown, stackName: string): unknown {
    if (Array.isArray(value)) return value.map((item) => this.resolve(item, stackName));
    if (typeof value !== 'object' || value === null) return value;
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1) {
      const [key, argument] = entries[0] as [string, unknown];
      switch (key) {
        case 'Ref':
          return this.ref(argument as string, stackName);
        case 'Fn::GetAtt': {
          const [logicalId, attribute] = (
            Array.isArray(argument) ? argument : String(argument).split('.')
          ) as [string, string];
          return this.attribute(this.resource(stackName, logicalId), attribute);
        }
        case 'Fn::ImportValue': {
          const name = this.resolve(argument, stackName);
          const exported = typeof name === 'string' ? this.exports.get(name) : undefined;
          if (!exported) throw new TemplateModelError(`${stackName}: no stack exports ${String(name)}`);
          return this.resolve(exported.value, exported.stackName);
        }
        case 'Fn::Join': {
          const [separator, items] = argument as [string, unknown[]];
          return (this.resolve(items, stackName) as unknown[]).map(String).join(separator);
        }
        case 'Fn::Select': {
          const [index, items] = argument as [number | string, unknown];
          return (this.resolve(items, stackName) as unknown[])[Number(index)];
        }
        case 'Fn::Split': {
          const [separator, text] = argument as [string, unknown];
          return String(this.resolve(text, stackName)).split(separator);
        }
        case 'Fn::Sub': {
          const [text, variables] = (Array.isArray(argument) ? argument : [argument, {}]) as [
            string,
            Record<string, unknown>,
          ];
          return text.replace(/\$\{([^}!][^}]*)\}/g, (_, name: string) => {
            if (name in variables) return String(this.resolve(variables[name], stackName));
            if (name.includes('.')) {
              const [logicalId, attribute] = name.split('.') as [string, string];
              return String(this.attribute(this.resource(stackName, logicalId), attribute));
            }
            return String(this.ref(name, stackName));
          });
        }
        default:
          if (key.startsWith('Fn::') || key === 'Condition') {
            throw new TemplateModelError(`${stackName}: intrinsic function ${key} is not modeled`);
          }
      }
    }
    return Object.fromEntries(entries.map(([key, item]) => [key, this.resolve(item, stackName)]));
  }

  private ref(name: string, stackName: string): unknown {
    switch (name) {
      case 'AWS::Region':
        return this.options.region;
      case 'AWS::AccountId':
        return this.options.account;
      case 'AWS::Partition':
        return 'aws';
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return stackName;
      case 'AWS::NoValue':
        return undefined;
    }
    const resource = this.resource(stackName, name);
    switch (resource.type) {
      case 'AWS::SQS::Queue':
        return this.queueUrl(resource.name);
      case 'AWS::SecretsManager::Secret':
      case 'AWS::SNS::Topic':
        return resource.arn;
      default:
        return resource.name;
    }
  }

  private attribute(resource: TemplateResource, attribute: string): unknown {
    switch (attribute) {
      case 'Arn':
      case 'TopicArn':
        return resource.arn;
      case 'QueueName':
      case 'TopicName':
      case 'Name':
        return resource.name;
      case 'QueueUrl':
        return this.queueUrl(resource.name);
      default:
        throw new TemplateModelError(
          `${resource.stackName}/${resource.logicalId}: attribute ${attribute} of ${resource.type} is not modeled`,
        );
    }
  }

  queueUrl(queueName: string): string {
    return `${this.options.sqsEndpoint.replace(/\/+$/, '')}/${this.options.account}/${queueName}`;
  }

  private resource(stackName: string, logicalId: string): TemplateResource {
    const resource = this.byStack.get(stackName)?.get(logicalId);
    if (!resource) throw new TemplateModelError(`${stackName}: no resource ${logicalId}`);
    return resource;
  }

  private describe(stackName: string, logicalId: string, resource: CfnResource): TemplateResource {
    const properties = resource.Properties ?? {};
    const nameProperty = NAME_PROPERTY[resource.Type];
    const given = nameProperty ? properties[nameProperty] : undefined;
    const fifo = resource.Type === 'AWS::SQS::Queue' && properties['FifoQueue'] === true;
    let name: string;
    if (typeof given === 'string') name = given;
    else {
      // CloudFormation's generated names: stack name, logical id and a random suffix, truncated.
      const limit = (NAME_LIMIT[resource.Type] ?? 128) - (fifo ? 5 : 0);
      const full = `${stackName}-${logicalId}`;
      // A role's name is its identity in every ARN IAM checks: two roles cut to the same 64
      // characters would be one principal, so a cut role name ends with a suffix of its own, as
      // CloudFormation's generated names end with a random one.
      // Any other cut name that another one of its type was cut to already (a long stack name
      // leaves two queues of one route the same first 80 characters) gets such a suffix too.
      const suffixed = `${full.slice(0, limit - 13)}-${createHash('sha256').update(full).digest('hex').slice(0, 12).toUpperCase()}${fifo ? '.fifo' : ''}`;
      const cut = full.slice(0, limit) + (fifo ? '.fifo' : '');
      const taken = `${resource.Type} ${cut}`;
      name =
        full.length > limit && (resource.Type === 'AWS::IAM::Role' || this.cutNames.has(taken))
          ? suffixed
          : cut;
      if (full.length > limit) this.cutNames.add(taken);
    }
    return {
      stackName,
      logicalId,
      type: resource.Type,
      properties,
      metadata: resource.Metadata ?? {},
      name,
      arn: arnOf(resource.Type, name, this.options),
    };
  }
}

function arnOf(type: string, name: string, { region, account }: TemplateModelOptions): string {
  const service = (kind: string, resource: string) => `arn:aws:${kind}:${region}:${account}:${resource}`;
  switch (type) {
    case 'AWS::SQS::Queue':
      return service('sqs', name);
    case 'AWS::Events::EventBus':
      return service('events', `event-bus/${name}`);
    case 'AWS::Events::Rule':
      return service('events', `rule/${name}`);
    case 'AWS::Events::Archive':
      return service('events', `archive/${name}`);
    case 'AWS::Pipes::Pipe':
      return service('pipes', `pipe/${name}`);
    case 'AWS::Lambda::Function':
      return service('lambda', `function:${name}`);
    case 'AWS::DynamoDB::Table':
      return service('dynamodb', `table/${name}`);
    case 'AWS::SecretsManager::Secret':
      return service('secretsmanager', `secret:${name}-LOCAL1`);
    case 'AWS::SNS::Topic':
      return service('sns', name);
    case 'AWS::IAM::Role':
      return `arn:aws:iam::${account}:role/${name}`;
    case 'AWS::Logs::LogGroup':
      return service('logs', `log-group:${name}:*`);
    case 'AWS::KMS::Key':
      return service('kms', `key/${name}`);
    case 'AWS::CloudWatch::Alarm':
    case 'AWS::CloudWatch::CompositeAlarm':
      return service('cloudwatch', `alarm:${name}`);
    default:
      return service('local', name);
  }
}

function checkResource(stackName: string, logicalId: string, resource: CfnResource): string | undefined {
  const where = `${stackName}/${logicalId} (${resource.Type})`;
  const model = RESOURCE_TYPES[resource.Type];
  if (!model) return `${where}: resource type ${resource.Type} is not modeled by the local runtime`;
  if (resource.Condition !== undefined) return `${where}: resource conditions are not modeled`;
  if (model.properties === '*') return undefined;
  const unknown = Object.keys(resource.Properties ?? {}).filter(
    (property) => !(model.properties as readonly string[]).includes(property),
  );
  return unknown.length > 0
    ? `${where}: property ${unknown.join(', ')} is not modeled by the local runtime`
    : undefined;
}
