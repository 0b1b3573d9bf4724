import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { perEndpoint } from './per-endpoint.ts';

/**
 * Powertools' SecretsProvider over the process's Secrets Manager client (one per endpoint:
 * per-endpoint.ts). The provider owns the cache, so sharing it means every reader of a secret
 * shares one fetch per max age.
 */
export const secretsProvider = perEndpoint(
  'AWS_ENDPOINT_URL_SECRETS_MANAGER',
  () => new SecretsProvider({ awsSdkV3Client: new SecretsManagerClient({}) }),
);
