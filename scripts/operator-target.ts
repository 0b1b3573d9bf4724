import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
/**
 * Where the operator commands (signups.ts, resolve-signup.ts, drift-backfill.ts) find the connector: on AWS, the stack's
 * table (output TableName) and token secret by flag or environment, with the usual credentials; or
 * the local runtime (`--local http://127.0.0.1:4010`), whose `/_local/environment` gives the
 * drift watch's environment from the template, local endpoints and credentials included.
 */

export class SignupUsageError extends Error {
  override readonly name = 'SignupUsageError';
}

/** Fills `process.env` from a running local runtime; variables already set win. */
export async function useLocalRuntime(endpoint: string): Promise<void> {
  let answer: Response;
  try {
    answer = await fetch(new URL('/_local/environment', endpoint));
  } catch (error) {
    throw new Error(
      `no local runtime answers at ${endpoint} (start it with npm start -- --serve): ${(error as Error).message}`,
    );
  }
  if (!answer.ok) throw new Error(`${endpoint}/_local/environment answered ${answer.status}`);
  const { environment } = (await answer.json()) as { environment: Record<string, string> };
  for (const [name, value] of Object.entries(environment)) {
    if (process.env[name] === undefined || process.env[name] === '') process.env[name] = value;
  }
}

/** A value from a flag, else the environment; a usage error naming both when neither is set. */
export function required(value: string | undefined, envName: string, flag: string): string {
  const found = value ?? process.env[envName];
  if (found === undefined || found === '') {
    throw new SignupUsageError(
      `${flag} is required (or set ${envName}; with --local it comes from the runtime)`,
    );
  }
  return found;
}

/** The command's flags, or a usage error naming what is wrong followed by the usage. */
export function parseCommandArgs(
  argv: readonly string[],
  options: NonNullable<ParseArgsConfig['options']>,
  usage: string,
): Record<string, string | boolean | undefined> {
  try {
    return parseArgs({ args: [...argv], options, strict: true }).values as Record<
      string,
      string | boolean | undefined
    >;
  } catch (error) {
    throw new SignupUsageError(`${(error as Error).message}\n${usage}`);
  }
}

/** What the commands' runOperatorCommand target holds: a DynamoDB client made once the region is known. */
export interface TableTarget {
  client?: DynamoDBClient;
  region?: string;
  destroy(): void;
}

export function tableTarget(region: string | undefined): TableTarget {
  return {
    ...(region === undefined ? {} : { region }),
    destroy() {
      this.client?.destroy();
    },
  };
}
