import type { AccessGrantUse, GrantUser } from './authorizer.ts';
import type { TemplateIam } from './template-iam.ts';

/**
 * A role's grants set against what a run used of them: every (action, resource) an Allow statement
 * of the role's identity policies names, each with the calls that matched it (IAM's own matching:
 * actions case-insensitively, resources with the `*` and `?` wildcards of the policy grammar, IAM
 * user guide, "IAM JSON policy elements: Resource"). What no call matched is a grant the template
 * could drop; a call the grants did not cover was denied and is in `LocalIam.denied()` instead.
 */

export interface Grant {
  readonly action: string;
  /** The statement's resource as written (an ARN, maybe with wildcards). */
  readonly resource: string;
}

export interface GrantReport {
  readonly roleArn: string;
  readonly roleName: string;
  /** Each grant, with who used it ('code', 'event source mapping', 'function logs', 'pipe'). */
  readonly grants: ReadonlyArray<Grant & { readonly usedBy: readonly GrantUser[] }>;
  readonly unused: readonly Grant[];
}

/** Every (action, resource) the role's Allow statements name; a Deny or NotAction is reported, not expanded. */
export function grantsOf(template: TemplateIam, roleArn: string): Grant[] {
  const role = template.roles.get(roleArn);
  if (!role) throw new Error(`no role ${roleArn} in the template`);
  const grants = new Map<string, Grant>();
  for (const policy of role.policies) {
    const statements = policy.document.Statement;
    for (const statement of (Array.isArray(statements) ? statements : [statements]) as Array<
      Record<string, unknown>
    >) {
      if (statement['Effect'] !== 'Allow') continue;
      if (statement['NotAction'] !== undefined || statement['NotResource'] !== undefined) {
        throw new Error(`${role.name} (${policy.name}): NotAction / NotResource cannot be compared with use`);
      }
      for (const action of list(statement['Action'])) {
        for (const resource of list(statement['Resource'])) {
          const grant = { action, resource };
          grants.set(JSON.stringify(grant), grant);
        }
      }
    }
  }
  return [...grants.values()];
}

/** Each of the role's grants with the uses it covered, and those no use covered. */
export function grantReport(
  template: TemplateIam,
  roleArn: string,
  used: readonly AccessGrantUse[],
): GrantReport {
  const own = used.filter((use) => use.roleArn === roleArn);
  const grants = grantsOf(template, roleArn).map((grant) => ({
    ...grant,
    usedBy: [
      ...new Set(
        own
          .filter((use) => matches(grant.action, use.action) && matches(grant.resource, use.resource, true))
          .map((use) => use.by),
      ),
    ].sort(),
  }));
  return {
    roleArn,
    roleName: template.roles.get(roleArn)?.name ?? roleArn,
    grants,
    unused: grants
      .filter((grant) => grant.usedBy.length === 0)
      .map(({ action, resource }) => ({ action, resource })),
  };
}

/** IAM's wildcard match: `*` any run of characters, `?` one; actions ignore case, ARNs do not. */
function matches(pattern: string, value: string, caseSensitive = false): boolean {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`, caseSensitive ? '' : 'i').test(value);
}

function list(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}
