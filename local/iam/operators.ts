import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ConnectorConfig } from '#lib/config.ts';
import { fillPolicy } from '#scripts/policy-placeholders.ts';
import type { TemplateModel } from '../cloudformation.ts';
import type { PolicyDocument, RoleModel } from './template-iam.ts';

/**
 * The operators of the local runtime: one principal per operator command (scripts/redrive.ts,
 * replay.ts, signups.ts, resolve-signup.ts, drift-backfill.ts), whose identity policy is the one
 * docs/deploy.md gives for that command (docs/policies/operator-<command>.json, and for
 * resolve-signup the token key's statement when the config names one), filled in from this
 * template's stack outputs as `npm run policies -- fill` fills it from a deployed stack's. A command
 * run with the access key `LOCAL.operator.<command>` is that principal, and every call it makes is
 * authorized by the same evaluator as the functions' calls: what the documented policy does not
 * allow is denied as AWS would deny it. Any other key stays the developer's own, not checked.
 */

export const OPERATOR_COMMANDS = [
  'redrive',
  'replay',
  'signups',
  'resolve-signup',
  'drift-backfill',
] as const;
export type OperatorCommand = (typeof OPERATOR_COMMANDS)[number];

/** The access key id an operator command signs with locally (its secret key is not checked). */
export function operatorAccessKeyId(command: OperatorCommand): string {
  return `LOCAL.operator.${command}`;
}

const POLICY_DIR = fileURLToPath(new URL('../../docs/policies/', import.meta.url));

function documentedPolicy(file: string): PolicyDocument {
  return JSON.parse(readFileSync(`${POLICY_DIR}${file}`, 'utf8')) as PolicyDocument;
}

/** Each operator command's role: its documented policy, filled in for this template. */
export function operatorRoles(
  model: TemplateModel,
  config: ConnectorConfig,
  where: { readonly region: string; readonly account: string },
): Map<OperatorCommand, RoleModel> {
  const secret = model.ofType('AWS::SecretsManager::Secret')[0]?.name;
  const existing = 'existingSecretName' in config.tokenSecret ? config.tokenSecret : undefined;
  const values: Record<string, string> = {
    Region: where.region,
    Account: where.account,
    InboundSource: config.inboundSource,
    TokenSecretName: secret ?? existing?.existingSecretName ?? '',
    ...(existing?.kmsKeyArn ? { TokenSecretKmsKeyArn: existing.kmsKeyArn } : {}),
  };
  const outputs = model.outputs();
  const roles = new Map<OperatorCommand, RoleModel>();
  for (const command of OPERATOR_COMMANDS) {
    const files = [
      `operator-${command}.json`,
      ...(command === 'resolve-signup' && existing?.kmsKeyArn ? ['token-secret-kms-decrypt.json'] : []),
    ];
    let policies: RoleModel['policies'];
    try {
      policies = files.map((file) => ({
        name: file,
        document: fillPolicy(documentedPolicy(file), outputs, values),
      }));
    } catch {
      // The documented policy names a resource this template has not (a cloud assembly of another
      // route table): that command has no operator here, its key stays the developer's.
      continue;
    }
    roles.set(command, {
      name: `operator-${command}`,
      arn: `arn:aws:iam::${where.account}:role/operator-${command}`,
      policies,
    });
  }
  return roles;
}
