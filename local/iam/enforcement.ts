import type { ConnectorConfig } from '#lib/config.ts';
import type { AccessCheck } from '../aws/access.ts';
import { AwsApiError } from '../aws-endpoint.ts';
import { type TemplateModel, TemplateModelError } from '../cloudformation.ts';
import type { DeploymentAccess } from '../deployment.ts';
import { alarmActionsError, checkAlarmActions } from './alarm-actions.ts';
import { type AccessRequest, LocalIam, type Principal } from './authorizer.ts';
import { CallerRegistry, type FunctionCredentials } from './credentials.ts';
import { DecisionStore } from './decision-store.ts';
import { operatorAccessKeyId, operatorRoles } from './operators.ts';
import {
  dynamoActions,
  eventsActions,
  type IamAction,
  type ResourceNames,
  secretsActions,
  sqsActions,
  UnmappedOperationError,
} from './requests.ts';
import { readTemplateIam, type TemplateIam } from './template-iam.ts';

/**
 * The template's IAM, enforced on every AWS call the local runtime serves or makes for a principal
 * (docs/local.md, "IAM"):
 *
 * - each function's SDK calls, as its execution role: the function signs with credentials of its
 *   own (credentials.ts); the DynamoDB proxy (`dynamoGuard`) and the AWS endpoint (`endpointGuard`)
 *   map each request to its IAM actions (requests.ts) and answer a denied one as AWS does;
 * - EventBridge delivering to each rule target and to its dead-letter queue, as
 *   `events.amazonaws.com` with aws:SourceArn = the rule (`deploymentAccess().ruleTarget`): the
 *   queue policy, or the function's Lambda permissions for a schedule;
 * - each pipe as its role, each event source mapping as its function's role (`pipe`, `mapping`);
 * - each alarm action at start-up, as `cloudwatch.amazonaws.com` (alarm-actions.ts).
 */

export interface IamEnforcement {
  readonly iam: LocalIam;
  readonly callers: CallerRegistry;
  /** The credentials a function signs with (its execution role's, as on Lambda). */
  credentialsOf(functionName: string): FunctionCredentials | undefined;
  deploymentAccess(): DeploymentAccess;
  /** The denial message of a DynamoDB request, or undefined when it may go on. */
  dynamoGuard(request: DynamoRequest): Promise<string | undefined>;
  /** Throws the AWS error of a denied EventBridge / SQS / Secrets Manager request. */
  endpointGuard(names: ResourceNames): (request: EndpointRequest) => Promise<void>;
  /** The start-up line: how many principals and policies are enforced. */
  startupLine(): string;
  /** Throws when an alarm could not notify (alarm-actions.ts). */
  checkAlarms(): Promise<void>;
  /** Keeps this run's new decisions for the next run (decision-store.ts). */
  saveDecisions(): void;
}

export interface DynamoRequest {
  readonly operation: string;
  readonly body: string;
  readonly authorization: string | undefined;
}

export interface EndpointRequest {
  /** X-Amz-Target, e.g. `AmazonSQS.SendMessage`. */
  readonly target: string;
  readonly body: Readonly<Record<string, unknown>>;
  readonly authorization: string | undefined;
}

const EVENTS = { kind: 'service', service: 'events.amazonaws.com' } as const;

/** Reads the template's IAM; throws what the runtime cannot enforce (a TemplateModelError). */
export function startIamEnforcement(
  model: TemplateModel,
  where: { readonly region: string; readonly account: string },
  options: {
    /** Keep decisions between runs (decision-store.ts). @default true */
    readonly keepDecisions?: boolean;
    /**
     * The deployment's config: with it, each operator command is a principal under its documented
     * policy (operators.ts). @default no operators: every other caller is the developer
     */
    readonly config?: ConnectorConfig;
  } = {},
): IamEnforcement {
  const read = readTemplateIam(model, where);
  if (read.problems.length > 0) {
    throw new TemplateModelError(`\n  - ${read.problems.join('\n  - ')}`);
  }
  const operators = options.config ? operatorRoles(model, options.config, where) : new Map();
  const template: TemplateIam = {
    ...read,
    roles: new Map([...read.roles, ...[...operators.values()].map((role) => [role.arn, role] as const)]),
  };
  const store = options.keepDecisions === false ? undefined : new DecisionStore(template);
  const iam = new LocalIam(template, store);
  const callers = new CallerRegistry();
  for (const [functionName, roleArn] of template.functionRoles) callers.register(functionName, roleArn);
  for (const [command, role] of operators)
    callers.registerOperator(operatorAccessKeyId(command), command, role.arn);

  /** The first denial's message of `requests` (in order), at once when every decision is known. */
  const firstDenial = (
    requests: readonly AccessRequest[],
    from = 0,
  ): string | undefined | Promise<string | undefined> => {
    for (let index = from; index < requests.length; index++) {
      const answer = iam.authorize(requests[index] as AccessRequest);
      if (answer instanceof Promise) {
        return answer.then((denial) => (denial ? denial.message : firstDenial(requests, index + 1)));
      }
      if (answer) return answer.message;
    }
    return undefined;
  };
  const check =
    (...requests: AccessRequest[]): AccessCheck =>
    () =>
      firstDenial(requests);
  /** A check decided ahead (rule deliveries: an ordered delivery is made before PutEvents returns). */
  const prepared = (...requests: AccessRequest[]): AccessCheck => {
    for (const request of requests) void iam.prepare(request);
    return check(...requests);
  };
  const roleSession = (roleArn: string | undefined, session: string): Principal | undefined =>
    roleArn === undefined ? undefined : { kind: 'role', roleArn, session };
  const noRole =
    (who: string): AccessCheck =>
    async () =>
      `${who} has no role in the template`;
  const queueReader = (
    principal: Principal | undefined,
    who: string,
    queueArn: string,
    by: 'event source mapping' | 'pipe',
  ) =>
    principal
      ? {
          receive: check(
            { principal, action: 'sqs:ReceiveMessage', resource: queueArn, by },
            { principal, action: 'sqs:GetQueueAttributes', resource: queueArn, by },
          ),
          delete: check({ principal, action: 'sqs:DeleteMessage', resource: queueArn, by }),
        }
      : { receive: noRole(who), delete: noRole(who) };

  /** A function's call: each of its IAM actions as its execution role; the first denial's message. */
  const authorizeCall = async (
    caller: { functionName: string; roleArn: string },
    actions: () => Promise<IamAction[]>,
  ): Promise<string | undefined> => {
    const principal: Principal = { kind: 'role', roleArn: caller.roleArn, session: caller.functionName };
    let mapped: IamAction[];
    try {
      mapped = await actions();
    } catch (error) {
      if (!(error instanceof UnmappedOperationError)) throw error;
      return iam.refuse(principal, error.operation, '*', error.message).message;
    }
    for (const action of mapped) {
      const denial = await iam.authorize({ principal, ...action });
      if (denial) return denial.message;
    }
    return undefined;
  };

  return {
    iam,
    callers,
    credentialsOf: (functionName) => callers.credentialsOf(functionName),
    deploymentAccess: () => ({
      ruleTarget: (ruleArn, target, deadLetterQueueArn) => {
        const context = { 'aws:SourceArn': ruleArn, 'aws:SourceAccount': where.account };
        return {
          deliver: prepared({
            principal: EVENTS,
            action: target.kind === 'sqs' ? 'sqs:SendMessage' : 'lambda:InvokeFunction',
            resource: target.arn,
            context,
          }),
          ...(deadLetterQueueArn === undefined
            ? {}
            : {
                deadLetter: prepared({
                  principal: EVENTS,
                  action: 'sqs:SendMessage',
                  resource: deadLetterQueueArn,
                  context,
                }),
              }),
        };
      },
      pipe: (pipeName, sourceArn, targetArn) => {
        const principal = roleSession(template.pipeRoles.get(pipeName), pipeName);
        return {
          ...queueReader(principal, `pipe ${pipeName}`, sourceArn, 'pipe'),
          send: principal
            ? check({ principal, action: 'sqs:SendMessage', resource: targetArn, by: 'pipe' })
            : noRole(`pipe ${pipeName}`),
        };
      },
      mapping: (functionName, queueArn) =>
        queueReader(
          roleSession(template.functionRoles.get(functionName), functionName),
          `function ${functionName}`,
          queueArn,
          'event source mapping',
        ),
      functionLogs: (functionName, logGroupName) => {
        const principal = roleSession(template.functionRoles.get(functionName), functionName);
        if (!principal) return noRole(`function ${functionName}`);
        // Lambda writes a function's logs with its execution role: logs:CreateLogStream and
        // logs:PutLogEvents on the function's log group (Lambda Developer Guide, "Sending Lambda
        // function logs to CloudWatch Logs", https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs.html:
        // "Lambda needs the … logs:CreateLogStream, logs:PutLogEvents … permissions"); both act on a
        // log stream of the group (Service Authorization Reference, CloudWatch Logs). A denial loses
        // the function's logs, not its invocation, as on AWS.
        const stream = `arn:aws:logs:${where.region}:${where.account}:log-group:${logGroupName}:log-stream:local`;
        return check(
          { principal, action: 'logs:CreateLogStream', resource: stream, by: 'function logs' },
          { principal, action: 'logs:PutLogEvents', resource: stream, by: 'function logs' },
        );
      },
    }),
    dynamoGuard: async ({ operation, body, authorization }) => {
      const caller = callers.callerOf(authorization);
      if (!caller) return undefined;
      return authorizeCall(caller, () =>
        dynamoActions(operation, parseJson(body), { region: where.region, account: where.account }),
      );
    },
    endpointGuard:
      (names) =>
      async ({ target, body, authorization }) => {
        const caller = callers.callerOf(authorization);
        if (!caller) return;
        const [prefix, operation = ''] = target.split('.');
        const denied = await authorizeCall(caller, () => {
          if (prefix === 'AmazonSQS') return sqsActions(operation, body, names);
          if (prefix === 'AWSEvents') return eventsActions(operation, body, names);
          if (prefix === 'secretsmanager') return secretsActions(operation, body, names);
          throw new UnmappedOperationError(String(prefix), operation);
        });
        if (denied === undefined) return;
        if (prefix === 'AmazonSQS') {
          // SQS names the action in lower case ("… is not authorized to perform: sqs:sendmessage on
          // resource: … because no identity-based policy allows the sqs:sendmessage action", as the
          // SDKs report it) and answers AccessDenied (Amazon SQS Developer Guide, "Troubleshoot access
          // denied errors in Amazon SQS": "An error occurred (AccessDenied) when calling the
          // SendMessage operation").
          throw new AwsApiError(
            'AccessDenied',
            denied.replace(/sqs:[A-Za-z]+/g, (action) => action.toLowerCase()),
            403,
            'AccessDenied;Sender',
          );
        }
        throw new AwsApiError('AccessDeniedException', denied, 400);
      },
    checkAlarms: async () => {
      const problems = await checkAlarmActions(iam);
      store?.save();
      if (problems.length > 0) throw alarmActionsError(problems);
    },
    saveDecisions: () => store?.save(),
    startupLine: () => {
      const summary = iam.summary();
      const services = [
        'events.amazonaws.com',
        ...(template.alarms.length > 0 ? ['cloudwatch.amazonaws.com'] : []),
      ];
      const kinds = Object.entries(summary.byKind)
        .map(
          ([kind, count]) =>
            `${count} ${count === 1 || kind.endsWith('s') ? kind : kind.replace(/y$/, 'ie')}${count === 1 || kind.endsWith('s') ? '' : 's'}`,
        )
        .join(', ');
      return `IAM enforced: ${summary.roles + services.length} principals (${summary.roles} roles, ${services.join(', ')}), ${
        summary.identityPolicies + summary.resourcePolicies
      } policies (${summary.identityPolicies} identity; ${kinds}); ${callers.size} functions sign as their roles${
        operators.size > 0 ? `, ${operators.size} operator commands as theirs (LOCAL.operator.<command>)` : ''
      }`;
    },
  };
}

function parseJson(body: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(body || '{}');
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
