import type { LocalFunction } from '../aws/lambda.ts';
import type { LocalRuntimeOptions } from '../runtime.ts';
import { LOCAL_REGION } from '../template.ts';
import type { LocalServices } from './services.ts';

/** The variables a function runs with besides the template's: what Lambda sets, and the local endpoints. */
export function lambdaRuntimeVariables(
  services: Pick<LocalServices, 'dynamo' | 'endpoint'>,
  options: Pick<LocalRuntimeOptions, 'logLevel' | 'extraEnvironment'>,
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
    // Fake credentials: the SDK signs every request; the local endpoints never check signatures.
    AWS_ACCESS_KEY_ID: 'AKIALOCALRUNTIME0000',
    AWS_SECRET_ACCESS_KEY: 'local-runtime-secret-access-key',
    // The local stand-ins for AWS's endpoints (AWS SDK "Service-specific endpoints").
    AWS_ENDPOINT_URL_DYNAMODB: services.dynamo.endpoint,
    AWS_ENDPOINT_URL_EVENTBRIDGE: services.endpoint.url,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: services.endpoint.url,
    AWS_ENDPOINT_URL_SQS: services.endpoint.url,
    ...(options.logLevel ? { POWERTOOLS_LOG_LEVEL: options.logLevel } : {}),
    ...options.extraEnvironment,
  });
}

/** A developer's own AWS profile must never leak into a local run. */
export function forgetDeveloperAwsSettings(): void {
  for (const name of ['AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_ENDPOINT_URL']) delete process.env[name];
}
