import type { TemplateModel, TemplateResource } from '../cloudformation.ts';
import { awsManagedPolicy } from './managed-policies.ts';

/**
 * The template's IAM as the local runtime enforces it: every role with the policies that grant it
 * something (its inline `Policies`, each AWS::IAM::Policy attached to it, the AWS managed policies
 * it names), and every resource policy (SQS queue policies, SNS topic policies, KMS key policies,
 * the Lambda permissions of a function), with their intrinsic functions resolved to the local ARNs
 * (cloudformation.ts). It also says who acts as whom: each function's and each pipe's role, the
 * KMS key of each topic and secret, and the actions of each alarm.
 *
 * What it cannot read stops the runtime (`problems`), as any unmodeled template content does.
 */

export interface PolicyDocument {
  readonly Version?: string;
  readonly Statement: unknown;
}

export interface NamedPolicy {
  readonly name: string;
  readonly document: PolicyDocument;
}

export interface RoleModel {
  readonly name: string;
  readonly arn: string;
  /** Identity policies: inline, attached (AWS::IAM::Policy) and AWS managed. */
  readonly policies: readonly NamedPolicy[];
}

export type ResourcePolicyKind =
  | 'queue policy'
  | 'topic policy'
  | 'key policy'
  | 'Lambda permissions'
  | 'bus policy';

export interface ResourcePolicy {
  readonly kind: ResourcePolicyKind;
  readonly document: PolicyDocument;
}

export interface AlarmModel {
  readonly name: string;
  readonly arn: string;
  /** The ARNs of AlarmActions, OKActions and InsufficientDataActions. */
  readonly actions: readonly string[];
}

export interface TemplateIam {
  readonly account: string;
  readonly region: string;
  /** By role ARN. */
  readonly roles: ReadonlyMap<string, RoleModel>;
  /** By resource ARN: a queue's, a topic's, a key's or a function's policy. */
  readonly resourcePolicies: ReadonlyMap<string, ResourcePolicy>;
  /** Function name → its execution role's ARN. */
  readonly functionRoles: ReadonlyMap<string, string>;
  /** Pipe name → the role the pipe assumes. */
  readonly pipeRoles: ReadonlyMap<string, string>;
  /** Topic ARN → the ARN of the KMS key that encrypts it. */
  readonly topicKeys: ReadonlyMap<string, string>;
  /** Secret ARN → the ARN of its customer managed KMS key. */
  readonly secretKeys: ReadonlyMap<string, string>;
  readonly alarms: readonly AlarmModel[];
  readonly problems: readonly string[];
}

/** AWS KMS Developer Guide, "Default key policy": the account's principals, through their IAM policies. */
export function defaultKeyPolicy(account: string): PolicyDocument {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'Enable IAM User Permissions',
        Effect: 'Allow',
        Principal: { AWS: `arn:aws:iam::${account}:root` },
        Action: 'kms:*',
        Resource: '*',
      },
    ],
  };
}

export function readTemplateIam(
  model: TemplateModel,
  where: { readonly region: string; readonly account: string },
): TemplateIam {
  const problems: string[] = [];
  const fail = (resource: TemplateResource, message: string) =>
    problems.push(`${resource.stackName}/${resource.logicalId} (${resource.type}): ${message}`);
  const resolved = (resource: TemplateResource, property: string): unknown =>
    model.resolve(resource.properties[property], resource.stackName);
  const list = (value: unknown): unknown[] =>
    Array.isArray(value) ? value : value === undefined ? [] : [value];

  // Roles, with their inline and AWS managed policies.
  const roles = new Map<string, { name: string; arn: string; policies: NamedPolicy[] }>();
  const roleByName = new Map<string, string>();
  for (const resource of model.ofType('AWS::IAM::Role')) {
    const policies: NamedPolicy[] = [];
    for (const inline of list(resolved(resource, 'Policies'))) {
      const { PolicyName, PolicyDocument: document } = (inline ?? {}) as {
        PolicyName?: unknown;
        PolicyDocument?: unknown;
      };
      if (typeof PolicyName !== 'string' || !isDocument(document)) {
        fail(resource, 'an inline policy needs PolicyName and PolicyDocument');
        continue;
      }
      policies.push({ name: PolicyName, document });
    }
    for (const arn of list(resolved(resource, 'ManagedPolicyArns'))) {
      const managed = typeof arn === 'string' ? awsManagedPolicy(arn) : undefined;
      if (!managed) {
        fail(
          resource,
          `managed policy ${String(arn)} is not one the local IAM enforcement knows (local/iam/managed-policies.ts)`,
        );
        continue;
      }
      policies.push(managed);
    }
    roles.set(resource.arn, { name: resource.name, arn: resource.arn, policies });
    roleByName.set(resource.name, resource.arn);
  }
  // Policies attached to roles (AWS::IAM::Policy; `Roles` holds role names, what Ref gives).
  for (const resource of model.ofType('AWS::IAM::Policy')) {
    const document = resolved(resource, 'PolicyDocument');
    const name = resolved(resource, 'PolicyName');
    if (!isDocument(document) || typeof name !== 'string') {
      fail(resource, 'PolicyName and PolicyDocument are required');
      continue;
    }
    for (const roleName of list(resolved(resource, 'Roles'))) {
      const role = roles.get(roleByName.get(String(roleName)) ?? '');
      if (!role) {
        fail(resource, `role ${String(roleName)} is not a role of the template`);
        continue;
      }
      role.policies.push({ name, document });
    }
  }

  const resourcePolicies = new Map<string, ResourcePolicy>();
  const setPolicy = (resource: TemplateResource, arn: string, policy: ResourcePolicy) => {
    // A queue or topic has one policy: a second resource setting it would replace the first.
    if (resourcePolicies.has(arn)) fail(resource, `${arn} already has a ${policy.kind} in the template`);
    else resourcePolicies.set(arn, policy);
  };
  const queues = model.ofType('AWS::SQS::Queue');
  for (const resource of model.ofType('AWS::SQS::QueuePolicy')) {
    const document = resolved(resource, 'PolicyDocument');
    if (!isDocument(document)) {
      fail(resource, 'PolicyDocument is required');
      continue;
    }
    for (const url of list(resolved(resource, 'Queues'))) {
      const queue = queues.find((candidate) => model.queueUrl(candidate.name) === url);
      if (!queue) fail(resource, `${String(url)} is not a queue of the template`);
      else setPolicy(resource, queue.arn, { kind: 'queue policy', document });
    }
  }
  for (const resource of model.ofType('AWS::SNS::TopicPolicy')) {
    const document = resolved(resource, 'PolicyDocument');
    if (!isDocument(document)) {
      fail(resource, 'PolicyDocument is required');
      continue;
    }
    for (const topicArn of list(resolved(resource, 'Topics'))) {
      setPolicy(resource, String(topicArn), { kind: 'topic policy', document });
    }
  }
  // A bus's policy is the statements its EventBusPolicy resources put, each by its StatementId
  // ("PutPermission … StatementId: an identifier string for the external account that you are
  // granting permissions to", EventBridge API reference, PutPermission).
  const busStatements = new Map<string, unknown[]>();
  const buses = model.ofType('AWS::Events::EventBus');
  for (const resource of model.ofType('AWS::Events::EventBusPolicy')) {
    const busName = resolved(resource, 'EventBusName');
    const statement = resolved(resource, 'Statement');
    const bus = buses.find((candidate) => candidate.name === busName || candidate.arn === busName);
    if (!bus) fail(resource, `${String(busName)} is not a bus of the template`);
    else if (typeof statement !== 'object' || statement === null) {
      fail(resource, 'only the Statement form is modeled (not Action, Principal and Condition)');
    } else busStatements.set(bus.arn, [...(busStatements.get(bus.arn) ?? []), statement]);
  }
  for (const [arn, statements] of busStatements) {
    resourcePolicies.set(arn, {
      kind: 'bus policy',
      document: { Version: '2012-10-17', Statement: statements } as PolicyDocument,
    });
  }
  const keys = model.ofType('AWS::KMS::Key');
  for (const resource of keys) {
    const document = resolved(resource, 'KeyPolicy');
    resourcePolicies.set(resource.arn, {
      kind: 'key policy',
      document: isDocument(document) ? document : defaultKeyPolicy(where.account),
    });
  }
  // A key named by ARN, id (Ref) or as an ARN outside the template.
  const keyArnOf = (value: unknown): string | undefined => {
    if (typeof value !== 'string' || value === '') return undefined;
    return keys.find((key) => key.arn === value || key.name === value)?.arn ?? value;
  };

  // Lambda permissions: each becomes a statement of its function's resource-based policy, as
  // Lambda shows it ("Viewing resource-based IAM policies in Lambda": the source ARN and account are
  // conditions on AWS:SourceArn and AWS:SourceAccount).
  const functions = model.ofType('AWS::Lambda::Function');
  const permissions = new Map<string, unknown[]>();
  for (const resource of model.ofType('AWS::Lambda::Permission')) {
    const named = resolved(resource, 'FunctionName');
    const fn = functions.find((candidate) => candidate.arn === named || candidate.name === named);
    const principal = resolved(resource, 'Principal');
    const action = resolved(resource, 'Action');
    if (!fn || typeof principal !== 'string' || typeof action !== 'string') {
      fail(resource, 'FunctionName must be a function of the template, Principal and Action strings');
      continue;
    }
    const sourceArn = resolved(resource, 'SourceArn');
    const sourceAccount = resolved(resource, 'SourceAccount');
    const condition = {
      ...(typeof sourceArn === 'string' ? { ArnLike: { 'AWS:SourceArn': sourceArn } } : {}),
      ...(typeof sourceAccount === 'string' ? { StringEquals: { 'AWS:SourceAccount': sourceAccount } } : {}),
    };
    const statements = permissions.get(fn.arn) ?? [];
    statements.push({
      Sid: resource.logicalId,
      Effect: 'Allow',
      Principal: permissionPrincipal(principal),
      Action: action,
      Resource: fn.arn,
      ...(Object.keys(condition).length > 0 ? { Condition: condition } : {}),
    });
    permissions.set(fn.arn, statements);
  }
  for (const [arn, statements] of permissions) {
    resourcePolicies.set(arn, {
      kind: 'Lambda permissions',
      document: { Version: '2012-10-17', Statement: statements },
    });
  }

  const roleOf = (resource: TemplateResource, property: string): string | undefined => {
    const arn = resolved(resource, property);
    if (typeof arn !== 'string' || !roles.has(arn)) {
      fail(resource, `${property} ${String(arn)} is not a role of the template`);
      return undefined;
    }
    return arn;
  };
  const functionRoles = new Map<string, string>();
  for (const resource of functions) {
    const role = roleOf(resource, 'Role');
    if (role) functionRoles.set(resource.name, role);
  }
  const pipeRoles = new Map<string, string>();
  for (const resource of model.ofType('AWS::Pipes::Pipe')) {
    const role = roleOf(resource, 'RoleArn');
    if (role) pipeRoles.set(resource.name, role);
  }

  const topicKeys = new Map<string, string>();
  for (const resource of model.ofType('AWS::SNS::Topic')) {
    const key = keyArnOf(resolved(resource, 'KmsMasterKeyId'));
    if (key) topicKeys.set(resource.arn, key);
  }
  const secretKeys = new Map<string, string>();
  for (const resource of model.ofType('AWS::SecretsManager::Secret')) {
    const key = keyArnOf(resolved(resource, 'KmsKeyId'));
    if (key) secretKeys.set(resource.arn, key);
  }

  // Metric and composite alarms alike: CloudWatch notifies for both as cloudwatch.amazonaws.com,
  // and a composite alarm's ARN has the same form (arn:…:cloudwatch:<region>:<account>:alarm:<name>).
  const alarmResources = [
    ...model.ofType('AWS::CloudWatch::Alarm'),
    ...model.ofType('AWS::CloudWatch::CompositeAlarm'),
  ];
  const alarms = alarmResources.map((resource) => ({
    name: resource.name,
    arn: resource.arn,
    actions: ['AlarmActions', 'OKActions', 'InsufficientDataActions']
      .flatMap((property) => list(resolved(resource, property)))
      .map(String),
  }));

  return {
    account: where.account,
    region: where.region,
    roles,
    resourcePolicies,
    functionRoles,
    pipeRoles,
    topicKeys,
    secretKeys,
    alarms,
    problems,
  };
}

/** AddPermission's Principal: a service, an account id, or an ARN ("*" for anyone). */
function permissionPrincipal(principal: string): unknown {
  if (principal === '*') return '*';
  if (/^\d{12}$/.test(principal)) return { AWS: `arn:aws:iam::${principal}:root` };
  if (principal.startsWith('arn:')) return { AWS: principal };
  return { Service: principal };
}

function isDocument(value: unknown): value is PolicyDocument {
  return typeof value === 'object' && value !== null && 'Statement' in value;
}
