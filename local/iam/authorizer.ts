import {
  getDenialReasons,
  type RequestDenial,
  runSimulation,
  type Simulation,
} from '@cloud-copilot/iam-simulate';
import type { DecisionStore } from './decision-store.ts';
import { logDenial } from './denial-log.ts';
import { defaultKeyPolicy, type TemplateIam } from './template-iam.ts';

/**
 * Authorizes a request as IAM would, with a maintained evaluator (`@cloud-copilot/iam-simulate`: its
 * identity and resource policy evaluation, every condition operator, KMS key policy semantics,
 * same-account requests): the principal's identity policies (a role's, from the template) and the
 * resource's policy (a queue's, a topic's, a key's, a function's Lambda permissions), in one
 * account, in strict mode (only the context keys given exist). IAM's own rule decides the
 * outcome ("Policy evaluation logic": an explicit deny wins; within one account an allow in either
 * the identity or the resource policy suffices, except for KMS keys, whose key policy must allow or
 * delegate to IAM); iam-simulate applies it.
 *
 * Each decision is cached per principal, action, resource and context: a run asks the evaluator
 * once per distinct request shape, however many calls share it. Every denied call is recorded
 * (`denied()`), and every allowed one of a role is counted by grant (`used()`), so a test can say
 * which granted actions no run needed.
 *
 * Not evaluated: service control and resource control policies, permission boundaries and session
 * policies (the template has none; a boundary stops the runtime at start-up), VPC endpoint
 * policies, and the condition keys a request does not carry here (see `requestContext`).
 */

export type Principal =
  /** A role's session: a function's execution role (session = the function's name) or a pipe's role. */
  | { readonly kind: 'role'; readonly roleArn: string; readonly session: string }
  /** An AWS service acting for a resource of the template (events.amazonaws.com, cloudwatch.amazonaws.com). */
  | { readonly kind: 'service'; readonly service: string };

export type ContextValue = string | readonly string[];

export interface AccessRequest {
  readonly principal: Principal;
  /** `service:Action`, e.g. `dynamodb:UpdateItem`. */
  readonly action: string;
  readonly resource: string;
  /** Request condition keys (aws:SourceArn, events:source, …) besides those every request carries. */
  readonly context?: Readonly<Record<string, ContextValue>>;
  /**
   * Who, under a role, makes the call (recorded with its use, not part of the decision): the
   * function's code, the Lambda service for the function (its event source mapping, its logs), the
   * pipe. @default 'code'
   */
  readonly by?: GrantUser;
}

/** Who uses a role's grant: see `AccessRequest.by`. */
export type GrantUser = 'code' | 'event source mapping' | 'function logs' | 'pipe';

export interface AccessDenial {
  /** The principal as AWS names it: a role session's ARN, or the service principal. */
  readonly principal: string;
  readonly action: string;
  readonly resource: string;
  /** Why, in AWS's words: "no identity-based policy allows the dynamodb:UpdateItem action". */
  readonly reason: string;
  /** AWS's whole sentence: "User: … is not authorized to perform: … on resource: … because …". */
  readonly message: string;
  /** When the call was denied (ISO 8601). */
  readonly at: string;
}

export interface AccessGrantUse {
  readonly roleArn: string;
  readonly action: string;
  readonly resource: string;
  readonly by: GrantUser;
}

interface Decision {
  readonly allowed: boolean;
  readonly reason?: string;
}

export interface LocalIamSummary {
  readonly roles: number;
  readonly identityPolicies: number;
  readonly resourcePolicies: number;
  readonly byKind: Readonly<Record<string, number>>;
}

export class LocalIam {
  private readonly decisions = new Map<string, Promise<Decision>>();
  /** The decisions known so far, answered without waiting. */
  private readonly settled = new Map<string, Decision>();
  private readonly deniedCalls: AccessDenial[] = [];
  private readonly usedGrants = new Map<string, AccessGrantUse>();
  private readonly listeners: Array<(denial: AccessDenial) => void> = [];
  /** Distinct request shapes put to the evaluator so far. */
  evaluations = 0;

  constructor(
    readonly template: TemplateIam,
    /** Decisions of earlier runs of the same policies (decision-store.ts). @default none */
    private readonly store?: DecisionStore,
  ) {}

  /**
   * Undefined when `request` is allowed, else its recorded denial: at once when its decision is
   * known (the same request shape was decided before), else once the evaluator answered.
   */
  authorize(request: AccessRequest): AccessDenial | undefined | Promise<AccessDenial | undefined> {
    const { principal, key } = this.keyOf(request);
    const settled = this.settled.get(key);
    if (settled) return this.outcome(principal, request, settled);
    return this.decision(principal, request, key).then((decided) =>
      this.outcome(principal, request, decided),
    );
  }

  /** Decides `request` ahead of its first call, recording nothing: that call is then answered at once. */
  prepare(request: AccessRequest): Promise<void> {
    const { principal, key } = this.keyOf(request);
    return this.settled.has(key)
      ? Promise.resolve()
      : this.decision(principal, request, key).then(() => undefined);
  }

  private keyOf(request: AccessRequest): { principal: string; key: string } {
    const principal = this.principalName(request.principal);
    const context = requestContext(this.template, request);
    return {
      principal,
      key: JSON.stringify([principal, request.action, request.resource, sortedEntries(context)]),
    };
  }

  private decision(principal: string, request: AccessRequest, key: string): Promise<Decision> {
    let decision = this.decisions.get(key);
    if (!decision) {
      const stored = this.store?.get(key);
      decision = (
        stored
          ? Promise.resolve(stored)
          : this.decide(principal, request, requestContext(this.template, request))
      ).then((decided) => {
        if (!stored) this.store?.set(key, decided);
        this.settled.set(key, decided);
        return decided;
      });
      this.decisions.set(key, decision);
    }
    return decision;
  }

  private outcome(
    principal: string,
    request: AccessRequest,
    { allowed, reason }: Decision,
  ): AccessDenial | undefined {
    if (allowed) {
      if (request.principal.kind === 'role') {
        const use = {
          roleArn: request.principal.roleArn,
          action: request.action,
          resource: request.resource,
          by: request.by ?? 'code',
        };
        this.usedGrants.set(JSON.stringify(use), use);
      }
      return undefined;
    }
    return this.record(principal, request.action, request.resource, reason ?? 'denied');
  }

  /** Refuses a call the evaluator cannot be asked about (an operation with no IAM mapping), recorded as denied. */
  refuse(principal: Principal, action: string, resource: string, reason: string): AccessDenial {
    return this.record(this.principalName(principal), action, resource, reason, reason);
  }

  private record(
    principal: string,
    action: string,
    resource: string,
    reason: string,
    message = deniedMessage(principal, action, resource, reason),
  ): AccessDenial {
    const denial: AccessDenial = {
      principal,
      action,
      resource,
      reason,
      message,
      at: new Date().toISOString(),
    };
    this.deniedCalls.push(denial);
    logDenial(denial);
    for (const listener of this.listeners) listener(denial);
    return denial;
  }

  /** Every denied call so far, in order. */
  denied(): readonly AccessDenial[] {
    return [...this.deniedCalls];
  }

  /** Called with each denied call from now on. */
  onDenied(listener: (denial: AccessDenial) => void): void {
    this.listeners.push(listener);
  }

  /** The (role, action, resource, by whom) allowed so far: the grants the run used. */
  used(): readonly AccessGrantUse[] {
    return [...this.usedGrants.values()];
  }

  /** A principal as AWS names it in an AccessDenied message. */
  principalName(principal: Principal): string {
    if (principal.kind === 'service') return principal.service;
    const role = this.template.roles.get(principal.roleArn);
    const name = role?.name ?? principal.roleArn.slice(principal.roleArn.lastIndexOf('/') + 1);
    return `arn:aws:sts::${this.template.account}:assumed-role/${name}/${principal.session}`;
  }

  summary(): LocalIamSummary {
    const byKind: Record<string, number> = {};
    for (const policy of this.template.resourcePolicies.values()) {
      byKind[policy.kind] = (byKind[policy.kind] ?? 0) + 1;
    }
    return {
      roles: this.template.roles.size,
      identityPolicies: [...this.template.roles.values()].reduce(
        (sum, role) => sum + role.policies.length,
        0,
      ),
      resourcePolicies: this.template.resourcePolicies.size,
      byKind,
    };
  }

  private async decide(
    principal: string,
    request: AccessRequest,
    context: Record<string, ContextValue>,
  ): Promise<Decision> {
    this.evaluations += 1;
    const role =
      request.principal.kind === 'role' ? this.template.roles.get(request.principal.roleArn) : undefined;
    if (request.principal.kind === 'role' && !role) {
      return { allowed: false, reason: `no role ${request.principal.roleArn} in the template` };
    }
    const resourcePolicy =
      this.template.resourcePolicies.get(request.resource)?.document ??
      // A key outside the template: its policy is unknown here, so the documented default key
      // policy, which lets the account's IAM policies decide.
      (request.resource.startsWith('arn:aws:kms:') ? defaultKeyPolicy(this.template.account) : undefined);
    const simulation: Simulation = {
      request: {
        principal,
        action: request.action,
        resource: {
          resource: request.resource,
          accountId: accountOf(request.resource, this.template.account),
        },
        contextVariables: Object.fromEntries(
          Object.entries(context).map(([name, value]) => [
            name,
            typeof value === 'string' ? value : [...value],
          ]),
        ),
      },
      identityPolicies: (role?.policies ?? []).map((policy) => ({
        name: policy.name,
        policy: policy.document,
      })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(resourcePolicy ? { resourcePolicy } : {}),
    };
    const result = await runSimulation(simulation, {});
    if (result.resultType === 'error') {
      return { allowed: false, reason: `the IAM evaluator refused the request: ${result.errors.message}` };
    }
    if (result.overallResult === 'Allowed') return { allowed: true };
    const denials = result.resultType === 'single' ? getDenialReasons(result.result.analysis) : [];
    return { allowed: false, reason: denialReason(denials, request) };
  }
}

/**
 * The context keys every request carries here, and the request's own: a deployed call comes over
 * TLS (`aws:SecureTransport`, the SDK's endpoints are HTTPS), in the template's region, from its
 * principal (IAM user guide, "AWS global condition context keys": aws:PrincipalArn is the role's
 * ARN for a role session; aws:PrincipalIsAWSService and aws:PrincipalServiceName for a service).
 * Time keys (aws:CurrentTime) are left out: they would make every decision a new one.
 */
export function requestContext(template: TemplateIam, request: AccessRequest): Record<string, ContextValue> {
  const principal: Record<string, ContextValue> =
    request.principal.kind === 'role'
      ? {
          'aws:PrincipalArn': request.principal.roleArn,
          'aws:PrincipalAccount': template.account,
          'aws:PrincipalType': 'AssumedRole',
          'aws:PrincipalIsAWSService': 'false',
        }
      : { 'aws:PrincipalIsAWSService': 'true', 'aws:PrincipalServiceName': request.principal.service };
  return {
    'aws:SecureTransport': 'true',
    'aws:RequestedRegion': template.region,
    ...principal,
    ...request.context,
  };
}

/**
 * The end of AWS's AccessDenied sentence (IAM user guide, "Troubleshoot access denied error
 * messages": "… because no identity-based policy allows the … action", "… with an explicit deny in
 * a resource-based policy"). A service principal has no identity policies: only a resource policy
 * can allow it.
 */
function denialReason(denials: readonly RequestDenial[], request: AccessRequest): string {
  const explicit = denials.find((denial) => denial.denialType === 'Explicit');
  if (explicit) {
    return `with an explicit deny in ${explicit.policyType === 'resource' ? 'a resource-based' : 'an identity-based'} policy`;
  }
  const identity = denials.some((denial) => denial.policyType === 'identity');
  return request.principal.kind === 'role' && identity
    ? `because no identity-based policy allows the ${request.action} action`
    : `because no resource-based policy allows the ${request.action} action`;
}

export function deniedMessage(principal: string, action: string, resource: string, reason: string): string {
  return `User: ${principal} is not authorized to perform: ${action} on resource: ${resource} ${reason}`;
}

function accountOf(arn: string, fallback: string): string {
  const account = arn.split(':')[4];
  return account && /^\d{12}$/.test(account) ? account : fallback;
}

function sortedEntries(context: Record<string, ContextValue>): Array<[string, ContextValue]> {
  return Object.entries(context).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
