import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/**
 * Powertools' SecretsProvider over one Secrets Manager client per process. The provider owns the
 * cache, so sharing it means every reader of a secret shares one fetch per max age. Built on first
 * use so AWS_ENDPOINT_URL_SECRETS_MANAGER set by a test or the local runtime applies.
 */
let provider: SecretsProvider | undefined;

export function secretsProvider(): SecretsProvider {
  provider ??= new SecretsProvider({ awsSdkV3Client: new SecretsManagerClient({}) });
  return provider;
}
