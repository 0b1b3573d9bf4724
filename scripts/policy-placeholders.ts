/**
 * The placeholders of the documented policies (docs/policies/: `{{Region}}`, `{{EventBusArn}}`, …)
 * and their values from a deployment's stack outputs: what an operator does to use a policy, and
 * what the local runtime does to enforce one (local/iam/operators.ts). Kept apart from
 * scripts/policies.ts, which writes the policies from the route table and the construct, so that
 * filling one in loads neither.
 */

/** The placeholders a policy uses, once each, in order. */
export function placeholdersOf(policy: unknown): string[] {
  return [...new Set([...JSON.stringify(policy).matchAll(/\{\{([A-Za-z]+)\}\}/g)].map((match) => match[1]!))];
}

/**
 * The stack output `name` (`EventBusName`, `AccountCreatedQueueUrl`, …): CDK makes its key from the
 * construct path and a hash (`ConnectorEventBusName5B64B6EF`), so the one key that ends with the name
 * before its 8-character hash; the key itself when it is exactly the name.
 */
export function outputNamed(outputs: Readonly<Record<string, string>>, name: string): string | undefined {
  if (outputs[name] !== undefined) return outputs[name];
  const matching = Object.keys(outputs).filter((key) => key.replace(/[0-9A-F]{8}$/, '').endsWith(name));
  if (matching.length > 1) throw new Error(`several stack outputs end with ${name}: ${matching.join(', ')}`);
  return matching[0] === undefined ? undefined : outputs[matching[0]];
}

/**
 * The value of each placeholder: `values` first (Region, Account, InboundSource, …), then the stack
 * outputs by name, `<X>QueueName` being the last segment of the output `<X>QueueUrl`.
 */
export function placeholderValue(
  name: string,
  outputs: Readonly<Record<string, string>>,
  values: Readonly<Record<string, string>> = {},
): string | undefined {
  if (values[name] !== undefined) return values[name];
  const output = outputNamed(outputs, name);
  if (output !== undefined) return output;
  const url = name.endsWith('QueueName')
    ? outputNamed(outputs, name.replace(/QueueName$/, 'QueueUrl'))
    : undefined;
  return url?.slice(url.lastIndexOf('/') + 1);
}

/** The policy with every placeholder filled in; throws naming the ones nothing gives. */
export function fillPolicy<T>(
  policy: T,
  outputs: Readonly<Record<string, string>>,
  values: Readonly<Record<string, string>> = {},
): T {
  const missing = placeholdersOf(policy).filter(
    (name) => placeholderValue(name, outputs, values) === undefined,
  );
  if (missing.length > 0) {
    throw new Error(
      `no value for ${missing.map((name) => `{{${name}}}`).join(', ')}: give it with --set Name=Value or as a stack output`,
    );
  }
  return JSON.parse(
    JSON.stringify(policy).replace(/\{\{([A-Za-z]+)\}\}/g, (_, name: string) =>
      JSON.stringify(placeholderValue(name, outputs, values)).slice(1, -1),
    ),
  ) as T;
}
