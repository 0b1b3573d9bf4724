import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTableInput } from '#functions/store/table.ts';
import { LOCAL_ACCOUNT_ID } from '../aws/lambda.ts';
import { LocalSecrets } from '../aws/secrets-api.ts';
import type { LocalDeployment, TableDefinition } from '../deployment.ts';
import { LOCAL_REGION } from '../template.ts';

/** The template's tables created in dynalite, and its secrets in the local Secrets Manager. */

/**
 * The tables of the deployment: the template's, then those the functions use (TABLE_NAME) that no
 * template defines. Those are adopted (config `state.existingTableName`: a table kept from an
 * earlier deployment or restored from point-in-time recovery), which exist in the account before
 * the deploy; locally the account is dynalite, started empty, so each is created as the
 * connector's table definition says (functions/store/table.ts): the shape the synth check
 * (lib/adopted-table.ts) demands of an adopted table.
 */
export function deploymentTables(deployed: Pick<LocalDeployment, 'tables' | 'functions'>): TableDefinition[] {
  const defined = new Set(deployed.tables.map((table) => table.input.TableName));
  const adopted = new Set(
    [...deployed.functions.values()]
      .map((fn) => fn.environment['TABLE_NAME'])
      .filter((name): name is string => !!name && !defined.has(name)),
  );
  return [
    ...deployed.tables,
    ...[...adopted].map((name) => ({ logicalId: `adopted:${name}`, input: createTableInput(name) })),
  ];
}

/** Tables as the template defines them (or the connector's definition, for adopted ones). */
export async function createTables(
  tables: readonly TableDefinition[],
  dynamoEndpoint: string,
): Promise<void> {
  const dynamoClient = new DynamoDBClient({
    endpoint: dynamoEndpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    for (const table of tables) await dynamoClient.send(new CreateTableCommand(table.input));
  } finally {
    dynamoClient.destroy();
  }
}

export interface DefinedSecrets {
  readonly secrets: LocalSecrets;
  /** The secret the functions read the service's bearer token from. */
  readonly tokenSecretName: string;
}

/**
 * Secrets as CloudFormation creates them; the one the functions read starts with `token` (`null`:
 * it starts as CloudFormation creates it too). A secret the functions read that the template does
 * not create (config `tokenSecret.existingSecretName`) is the partner's, made before the deploy:
 * it exists here with `token` (`null`: without a value), under the ARN Secrets Manager would give it
 * (its name, "-" and six characters).
 */
export function defineSecrets(deployed: LocalDeployment, token: string | null): DefinedSecrets {
  const tokenSecretIds = new Set(
    [...deployed.functions.values()]
      .map((fn) => fn.environment['TOKEN_SECRET_ID'])
      .filter((id): id is string => !!id),
  );
  const secrets = new LocalSecrets({
    region: LOCAL_REGION,
    account: LOCAL_ACCOUNT_ID,
    knownNames: [...tokenSecretIds].map(secretName),
  });
  for (const secret of deployed.secrets) {
    const isToken = tokenSecretIds.has(secret.arn) || tokenSecretIds.has(secret.name);
    const initial =
      isToken && token !== null ? token : secret.generated ? LocalSecrets.placeholder() : undefined;
    secrets.define(secret.name, secret.arn, initial);
  }
  for (const id of tokenSecretIds) {
    if (secrets.describe(id)) continue;
    const name = secretName(id);
    const arn = id.startsWith('arn:')
      ? id
      : `arn:aws:secretsmanager:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:secret:${name}-LOCAL1`;
    secrets.define(name, arn, token ?? undefined);
  }
  const tokenSecretName = deployed.secrets[0]?.name ?? secretName([...tokenSecretIds][0] ?? '');
  return { secrets, tokenSecretName };
}

/** A secret's name from what a function is given: its name, or its ARN (name-suffix). */
function secretName(idOrArn: string): string {
  const match = /:secret:(.+)-[A-Za-z0-9]{6}$/.exec(idOrArn);
  return match ? (match[1] as string) : idOrArn;
}
