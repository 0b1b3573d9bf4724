import { z } from 'zod';
import { outboundDetailTypes } from '#functions/contracts/registry.ts';

/**
 * The deployment-shape part of the connector config (lib/config.ts): where it goes (`account`,
 * `region`), under which names (`deploymentName`, `stage`), who may publish to its bus from other
 * accounts (`publishers`), which other accounts' buses hear its results (`consumers`), which
 * existing table it adopts (`state`), and how long its result events are archived.
 */

/** A name that stack, bus, table and alarm names can all carry: letters, digits and "-". */
const NAME_PART = /^[A-Za-z0-9][A-Za-z0-9-]{0,39}$/;

export const stageSchema = z
  .string()
  .regex(/^[a-z][a-z0-9]{0,11}$/, {
    error: 'expected a lower-case letter, then lower-case letters or digits (1-12 chars), e.g. "dev", "prod"',
  })
  .default('prod');

export const deploymentNameSchema = z
  .string()
  .regex(NAME_PART, {
    error: 'expected letters, digits and "-" (1-40 chars, starting with a letter or digit)',
  })
  .optional();

/** Whether `partnerName` can itself name the stacks (else `deploymentName` is required). */
export function isNamePart(value: string): boolean {
  return NAME_PART.test(value);
}

export const accountSchema = z.string().regex(/^\d{12}$/, { error: 'expected a 12-digit AWS account id' });
export const regionSchema = z
  .string()
  .regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, { error: 'expected an AWS region such as "us-east-1"' });

export const publishersSchema = z
  .strictObject({
    accounts: z
      .array(accountSchema)
      .min(1, { error: 'expected at least one account, or leave it out' })
      .optional(),
    // AWS Organizations ids: "o-" and 10 to 32 lower-case letters or digits (Organizations API
    // reference, Organization, Id).
    organizationId: z
      .string()
      .regex(/^o-[a-z0-9]{10,32}$/, { error: 'expected an AWS Organizations id such as "o-a1b2c3d4e5"' })
      .optional(),
  })
  .refine((publishers) => publishers.accounts !== undefined || publishers.organizationId !== undefined, {
    error: 'expected "accounts", "organizationId" or both',
  });

const BUS_ARN = /^arn:aws[a-z-]*:events:[a-z0-9-]+:\d{12}:event-bus\/[A-Za-z0-9._/-]{1,256}$/;

export const consumersSchema = z.array(
  z.strictObject({
    busArn: z.string().regex(BUS_ARN, {
      error: 'expected an event bus ARN (arn:aws:events:<region>:<account>:event-bus/<name>)',
    }),
    detailTypes: z
      .array(
        z.enum(outboundDetailTypes, {
          error: `expected outbound detail-types: ${outboundDetailTypes.join(', ')}`,
        }),
      )
      .min(1, {
        error: 'expected at least one detail-type, or leave it out (every result event and SyncFailed)',
      })
      .optional(),
  }),
);

export const stateSchema = z.strictObject({
  // An existing table (e.g. one kept by an earlier deployment, or restored from point-in-time
  // recovery) instead of a created one: docs/deploy.md, "Teardown and restore".
  existingTableName: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{3,255}$/, {
      error: 'expected a DynamoDB table name (3-255 of A-Z a-z 0-9 _ . -)',
    })
    .optional(),
  // `aws dynamodb describe-table --table-name <name>` saved to a file: its keys and indexes are
  // compared with what the connector needs at synth (lib/adopted-table.ts).
  existingTableDescription: z.string().min(1).optional(),
  // The archives of an earlier State stack, kept (retain) under this deployment's names: used as they
  // are instead of created again, which would fail on their names.
  existingArchives: z.boolean().optional(),
});

/** Days an EventBridge archive keeps events (the connector's own bound: 1..3650). */
export const archiveRetentionSchema = (fallback: number) =>
  z
    .preprocess(
      (value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value),
      z
        .number({ error: 'expected a whole number' })
        .int({ error: 'expected a whole number' })
        .min(1, { error: 'expected 1..3650' })
        .max(3650, { error: 'expected 1..3650' }),
    )
    .default(fallback);

/** What `bin/app.ts` learns of the target from the CDK CLI (its credentials and profile). */
export interface CdkTarget {
  readonly CDK_DEFAULT_ACCOUNT?: string | undefined;
  readonly CDK_DEFAULT_REGION?: string | undefined;
}

/**
 * The stacks' environment: the config's `account` and `region`. The CDK CLI sets
 * CDK_DEFAULT_ACCOUNT and CDK_DEFAULT_REGION from the credentials and profile it runs with (AWS CDK
 * developer guide, "Environments for the AWS CDK"); an account or region there that differs from
 * the config's is a refusal: a deploy must not go out with one partner's stage config into another
 * account. Without credentials (an offline synth, CI) there is no account, and the region the CLI
 * passes is then its own fallback (us-east-1 when none is configured), not a target: neither is
 * compared, and the configured target is used as it stands. Such a template deploys nowhere else
 * either: `cdk deploy` refuses credentials of another account than a stack's pinned one.
 */
export function targetProblems(
  configured: { readonly account: string; readonly region: string },
  target: CdkTarget,
): string[] {
  const problems: string[] = [];
  if (!target.CDK_DEFAULT_ACCOUNT) return problems;
  if (target.CDK_DEFAULT_ACCOUNT !== configured.account) {
    problems.push(
      `account: the config deploys to ${configured.account}, but the AWS credentials are of account ${target.CDK_DEFAULT_ACCOUNT}; use the profile of ${configured.account} or the config of this account`,
    );
  }
  if (target.CDK_DEFAULT_REGION && target.CDK_DEFAULT_REGION !== configured.region) {
    problems.push(
      `region: the config deploys to ${configured.region}, but the AWS profile's region is ${target.CDK_DEFAULT_REGION}; set AWS_REGION=${configured.region} or use the config of that region`,
    );
  }
  return problems;
}
