import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { type KeyDescriptor, type TableDescriptor, tableDefinition } from '#functions/store/table.ts';

/**
 * The check of an adopted table (config `state.existingTableName`) at synth. Synth runs offline,
 * so it cannot ask DynamoDB; the operator saves what DynamoDB says of the table
 * (`aws dynamodb describe-table --table-name <name> > table.json`) and names the file in
 * `state.existingTableDescription`. Its key schema, key attribute types and global secondary indexes
 * (keys and projected attributes) are compared with what the connector's code needs
 * (functions/store/table.ts), its name and ARN with the config's: a table the functions would fail
 * on at the first query stops the synth instead. A table restored from point-in-time recovery keeps
 * its indexes; its TTL and point-in-time recovery settings are not copied (DynamoDB API reference,
 * RestoreTableToPointInTime: "You must manually set up the following on the restored table: … Time
 * to Live (TTL) settings, Point in time recovery settings"), and describe-table does not show them:
 * docs/deploy.md's runbook sets them.
 */

interface DescribedKey {
  readonly AttributeName?: unknown;
  readonly KeyType?: unknown;
}

interface DescribedIndex {
  readonly IndexName?: unknown;
  readonly KeySchema?: readonly DescribedKey[];
  readonly Projection?: { readonly ProjectionType?: unknown; readonly NonKeyAttributes?: readonly unknown[] };
}

interface DescribedTable {
  readonly TableName?: unknown;
  readonly TableArn?: unknown;
  readonly KeySchema?: readonly DescribedKey[];
  readonly AttributeDefinitions?: ReadonlyArray<{
    readonly AttributeName?: unknown;
    readonly AttributeType?: unknown;
  }>;
  readonly GlobalSecondaryIndexes?: readonly DescribedIndex[];
}

/** Reads a describe-table answer (`{"Table": {...}}`, or the table object itself). */
export function readTableDescription(file: string, cwd: string): unknown {
  const path = isAbsolute(file) ? file : resolve(cwd, file);
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(
      `state.existingTableDescription: cannot read ${path} as JSON (${(error as Error).message})`,
    );
  }
}

/** What keeps the connector from working on the described table; empty when nothing does. */
export function adoptedTableProblems(
  described: unknown,
  expected: { readonly tableName: string; readonly account?: string; readonly region?: string },
  needs: TableDescriptor = tableDefinition,
): string[] {
  const table = ((described as { Table?: unknown })?.Table ?? described) as DescribedTable | undefined;
  if (typeof table !== 'object' || table === null || !Array.isArray(table.KeySchema)) {
    return [
      'not a describe-table answer (no Table.KeySchema): save `aws dynamodb describe-table --table-name <name>`',
    ];
  }
  const problems: string[] = [];
  if (table.TableName !== expected.tableName) {
    problems.push(`describes table ${String(table.TableName)}, not ${expected.tableName}`);
  }
  if (typeof table.TableArn === 'string') {
    const [, , , region, account] = table.TableArn.split(':');
    if (expected.region && region !== expected.region) {
      problems.push(`the table is in region ${region}, the deployment in ${expected.region}`);
    }
    if (expected.account && account !== expected.account) {
      problems.push(`the table is in account ${account}, the deployment in ${expected.account}`);
    }
  }
  const types = new Map(
    (table.AttributeDefinitions ?? []).map((definition) => [
      definition.AttributeName,
      definition.AttributeType,
    ]),
  );
  const keyProblem = (
    where: string,
    keys: readonly DescribedKey[] | undefined,
    pk: KeyDescriptor,
    sk: KeyDescriptor,
  ) => {
    const hash = keys?.find((key) => key.KeyType === 'HASH')?.AttributeName;
    const range = keys?.find((key) => key.KeyType === 'RANGE')?.AttributeName;
    if (hash !== pk.name || range !== sk.name) {
      problems.push(
        `${where}: keys ${String(hash)}/${String(range)}, the connector needs ${pk.name} (HASH) / ${sk.name} (RANGE)`,
      );
      return;
    }
    for (const key of [pk, sk]) {
      if (types.get(key.name) !== key.type) {
        problems.push(
          `${where}: ${key.name} is of type ${String(types.get(key.name))}, the connector needs ${key.type}`,
        );
      }
    }
  };
  keyProblem('table', table.KeySchema, needs.partitionKey, needs.sortKey);
  for (const index of needs.globalSecondaryIndexes) {
    const found = (table.GlobalSecondaryIndexes ?? []).find(
      (candidate) => candidate.IndexName === index.indexName,
    );
    if (!found) {
      problems.push(`index ${index.indexName} is missing (the connector queries it)`);
      continue;
    }
    keyProblem(`index ${index.indexName}`, found.KeySchema, index.partitionKey, index.sortKey);
    const projection = found.Projection?.ProjectionType;
    if (projection === 'ALL') continue;
    const projected = new Set(projection === 'INCLUDE' ? (found.Projection?.NonKeyAttributes ?? []) : []);
    const missing = index.projection.nonKeyAttributes.filter((attribute) => !projected.has(attribute));
    if (missing.length > 0) {
      problems.push(
        `index ${index.indexName} does not project ${missing.join(', ')} (${String(projection)})`,
      );
    }
  }
  return problems;
}
