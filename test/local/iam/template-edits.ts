import type { SynthesizedStack } from '#local/template.ts';

/** A statement of a policy document, as the synthesized template writes it. */
export interface TemplateStatement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Principal?: unknown;
  Resource?: unknown;
  Condition?: unknown;
}

/**
 * Edits the policy document of each resource of `type` whose logical id starts with `prefix`
 * (`property`: PolicyDocument, KeyPolicy); throws when none matched, so a renamed construct fails
 * the test that meant to edit it rather than letting it pass on an unedited template.
 */
export function editPolicies(
  stacks: SynthesizedStack[],
  type: string,
  prefix: string,
  edit: (statements: TemplateStatement[]) => TemplateStatement[],
  property = 'PolicyDocument',
): void {
  let edited = 0;
  for (const { template } of stacks) {
    for (const [logicalId, resource] of Object.entries(template.Resources)) {
      if (resource.Type !== type || !logicalId.startsWith(prefix) || !resource.Properties) continue;
      const document = resource.Properties[property] as { Statement: TemplateStatement[] };
      document.Statement = edit(document.Statement);
      edited += 1;
    }
  }
  if (edited === 0) throw new Error(`no ${type} ${prefix}* in the synthesized templates`);
}

export const actionsOf = (statement: TemplateStatement): string[] =>
  Array.isArray(statement.Action) ? statement.Action : [statement.Action];
