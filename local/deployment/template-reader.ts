import type { TemplateModel, TemplateResource } from '../cloudformation.ts';

/**
 * The template as every deployment step reads it: a resource's properties with their intrinsic
 * functions resolved (cloudformation.ts), and the problems found so far. A step records a problem
 * and goes on to the next resource rather than throwing, so that one start-up names every resource
 * the local runtime cannot run (deployment.ts throws them together once every step has run).
 */
export class TemplateReader {
  readonly problems: string[] = [];

  constructor(readonly model: TemplateModel) {}

  /** The account of the template's ARNs (its first resource's): the buses and archives made locally get theirs in it. */
  get account(): string {
    return this.model.resources[0]?.arn.split(':')[4] || '000000000000';
  }

  resolved(resource: TemplateResource, property: string): unknown {
    return this.model.resolve(resource.properties[property], resource.stackName);
  }

  fail(resource: TemplateResource, message: string): void {
    this.problems.push(`${resource.stackName}/${resource.logicalId} (${resource.type}): ${message}`);
  }
}

export function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}
