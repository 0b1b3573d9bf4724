import type { LocalFunction } from '../aws/lambda.ts';
import { invocationScope } from '../handler-output.ts';
import { type FunctionCredentials, LOCAL_OPERATOR_CREDENTIALS } from '../iam/credentials.ts';
import type { LocalRuntimeOptions } from '../runtime.ts';
import { LOCAL_REGION } from '../template.ts';
import type { LocalServices } from './services.ts';

/**
 * The variables a function runs with besides the template's: what Lambda sets, its execution role's
 * credentials (`credentialsOf`, local/iam/credentials.ts; without it, the developer's unchecked
 * local credentials), and the local endpoints.
 */
export function lambdaRuntimeVariables(
  services: Pick<LocalServices, 'dynamo' | 'endpoint'>,
  options: Pick<LocalRuntimeOptions, 'logLevel' | 'extraEnvironment'>,
  credentialsOf: (functionName: string) => FunctionCredentials | undefined = () => undefined,
): (fn: Omit<LocalFunction, 'handler'>) => Record<string, string> {
  const region = LOCAL_REGION;
  return (fn) => ({
    // What the Lambda runtime sets ("Defined runtime environment variables").
    AWS_REGION: region,
    AWS_DEFAULT_REGION: region,
    AWS_LAMBDA_FUNCTION_NAME: fn.name,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    // The execution role's credentials ("AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN –
    // The access keys obtained from the function's execution role"): the local endpoints authorize
    // each request as that role (local/iam/).
    ...credentialVariables(credentialsOf(fn.name)),
    ...localEndpointVariables(services),
    ...(options.logLevel ? { POWERTOOLS_LOG_LEVEL: options.logLevel } : {}),
    ...options.extraEnvironment,
  });
}

function credentialVariables(credentials: FunctionCredentials | undefined): Record<string, string> {
  return credentials
    ? {
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        AWS_SESSION_TOKEN: credentials.sessionToken,
      }
    : {
        AWS_ACCESS_KEY_ID: LOCAL_OPERATOR_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LOCAL_OPERATOR_CREDENTIALS.secretAccessKey,
      };
}

/** The local stand-ins for AWS's endpoints (AWS SDK "Service-specific endpoints"), the same for every function. */
export function localEndpointVariables(
  services: Pick<LocalServices, 'dynamo' | 'endpoint'>,
): Record<string, string> {
  return {
    AWS_ENDPOINT_URL_DYNAMODB: services.dynamo.endpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: services.endpoint.url,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: services.endpoint.url,
    AWS_ENDPOINT_URL_SQS: services.endpoint.url,
  };
}

/**
 * The runtime's endpoints become the process's, until the runtime stops (the returned undo): the
 * functions' SDK clients are one per endpoint and process (functions/runtime/clients/), so a tool or
 * test that reaches the functions' own clients from this process (the bench's request recorder, a
 * test counting a handler's reads) is handed the clients the functions use.
 */
export function useLocalEndpoints(services: Pick<LocalServices, 'dynamo' | 'endpoint'>): () => void {
  const variables = localEndpointVariables(services);
  const restore = restorerOf(process.env, Object.keys(variables));
  Object.assign(process.env, variables);
  return restore;
}

/** Sets `names` in `environment` back to what they hold now (unset ones unset again), when called. */
function restorerOf(environment: NodeJS.ProcessEnv, names: readonly string[]): () => void {
  const before = Object.fromEntries(names.map((name) => [name, environment[name]]));
  return () => {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete environment[name];
      else environment[name] = value;
    }
  };
}

/** A developer's own AWS profile must never leak into a local run. */
export function forgetDeveloperAwsSettings(): void {
  for (const name of ['AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_ENDPOINT_URL']) delete process.env[name];
}

const CREDENTIAL_VARIABLES = {
  AWS_ACCESS_KEY_ID: 'accessKeyId',
  AWS_SECRET_ACCESS_KEY: 'secretAccessKey',
  AWS_SESSION_TOKEN: 'sessionToken',
} as const;

/**
 * Every function of the template runs in this one process, so it has one `process.env`: the
 * credential variables are read through a view of it that gives each invocation its own function's
 * credentials (the invocation's scope, handler-output.ts `invocationScope`), and the developer's
 * unchecked local credentials outside any invocation (a test's client, an operator command run in
 * process). The SDK reads them when a client first signs (AWS SDK for JavaScript, "Setting
 * credentials in Node.js": environment variables are read by the default provider chain), which
 * happens in an invocation of the environment's own function (function-host.ts: one module instance
 * per execution environment, each environment one function's). Returns the undo.
 *
 * `shared` function modules (the bench's instrumented clients) share one client between every
 * function: its credentials cannot say which function calls, so they are left unscoped there, and
 * those SDK calls are not checked (everything else is).
 */
export function scopeFunctionCredentials(
  credentialsOf: (functionName: string) => FunctionCredentials | undefined,
): () => void {
  const original = process.env;
  const operator: Record<string, string | undefined> = {
    AWS_ACCESS_KEY_ID: LOCAL_OPERATOR_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_OPERATOR_CREDENTIALS.secretAccessKey,
    AWS_SESSION_TOKEN: undefined,
  };
  process.env = new Proxy(original, {
    get(target, key) {
      if (typeof key === 'string' && key in CREDENTIAL_VARIABLES) {
        const functionName = invocationScope.getStore();
        const own = functionName === undefined ? undefined : credentialsOf(functionName);
        return own ? own[CREDENTIAL_VARIABLES[key as keyof typeof CREDENTIAL_VARIABLES]] : operator[key];
      }
      return Reflect.get(target, key);
    },
    // Writes go to the environment itself (it accepts only whole data descriptors, which a
    // forwarded [[Set]] with the view as receiver would not give it).
    set(target, key, value) {
      return Reflect.set(target, key, value);
    },
  });
  // What the variables held before: the functions' environments are written into `original` too
  // (function-host.ts), and none of their credentials may outlive the runtime.
  const restore = restorerOf(original, Object.keys(CREDENTIAL_VARIABLES));
  return () => {
    process.env = original;
    restore();
  };
}
