/**
 * What an operator tool says when the AWS SDK cannot even start a call: no region, or no
 * credentials. The SDK's own messages ("Region is missing", "Could not load credentials from any
 * providers") do not say what to do; these do. Anything else is left to the caller.
 */
export function awsSetupProblem(error: unknown, command: string): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const text = `${error.name} ${error.message}`;
  if (/region is missing/i.test(text)) {
    return `no AWS region: pass --region <region> (the connector's region) or set AWS_REGION, e.g. AWS_REGION=us-east-1 npm run ${command} -- …`;
  }
  if (/region not accepted/i.test(text)) {
    return `the AWS region is not one (an empty or mistyped AWS_REGION or --region?): pass --region <region>, e.g. --region us-east-1`;
  }
  if (error.name === 'CredentialsProviderError' || /could not load credentials/i.test(text)) {
    return `no AWS credentials: sign in first (aws sso login, or set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) with a role allowed to use the connector's queues, then run npm run ${command} again`;
  }
  if (error.name === 'ExpiredToken' || error.name === 'ExpiredTokenException') {
    return `your AWS session has expired: sign in again (aws sso login, or refresh AWS_SESSION_TOKEN), then run npm run ${command} again`;
  }
  return undefined;
}

/** How an operator tool built on one AWS client runs from the command line. */
export interface OperatorCommand<
  Options extends { readonly help?: boolean; readonly region?: string },
  Client,
> {
  /** The npm script's name, for the messages. */
  readonly name: string;
  readonly help: string;
  /** Throws the command's usage error (exit 2) on bad arguments. */
  readonly parse: (argv: readonly string[]) => Options;
  readonly client: (region: string | undefined) => Client & { destroy(): void };
  /** Resolves with the exit code. */
  readonly run: (client: Client, options: Options) => Promise<number>;
  /** The command's usage error class: exit 2 when it is thrown. */
  readonly usageError: new (
    ...args: never[]
  ) => Error;
}

/**
 * Parses, prints the help, runs with one client and turns failures into an exit code and one line
 * on stderr: 2 for a usage error, 1 for anything else (a missing region or credentials said plainly).
 */
export async function runOperatorCommand<
  Options extends { readonly help?: boolean; readonly region?: string },
  Client,
>(command: OperatorCommand<Options, Client>, argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  let options: Options;
  try {
    options = command.parse(argv);
  } catch (error) {
    console.error((error as Error).message);
    process.exitCode = 2;
    return;
  }
  if (options.help) {
    console.log(command.help);
    return;
  }
  const client = command.client(options.region);
  try {
    process.exitCode = await command.run(client, options);
  } catch (error) {
    console.error(
      `${command.name} failed: ${awsSetupProblem(error, command.name) ?? (error as Error).message}`,
    );
    process.exitCode = error instanceof command.usageError ? 2 : 1;
  } finally {
    client.destroy();
  }
}
