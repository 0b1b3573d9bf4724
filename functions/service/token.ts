import type { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { RetryableError, TokenMissingError } from '#functions/domain/errors.ts';
import { secretsProvider } from '#functions/runtime/clients/secrets.ts';

/**
 * The bearer token for the service, read from Secrets Manager (never from an env var, never
 * logged). Powertools caches it for `maxAgeSeconds`, so a rotated secret is picked up within that
 * time without a redeploy while a warm function makes one Secrets Manager call per max age; when
 * the service refuses the token, `invalidate()` makes the next call read the secret at once. A
 * secret that is missing, empty or malformed is a `TokenMissingError`: records wait until it is set.
 */

export interface TokenFromSecretOptions {
  /** How long a fetched token is reused. @default 300 */
  maxAgeSeconds?: number;
  /** @default the process-wide provider from `clients/secrets.ts` */
  provider?: SecretsProvider;
}

/** The token, fetched and cached; `invalidate()` makes the next call read the secret again. */
export type TokenSource = (() => Promise<string>) & { invalidate(): void };

const decoder = new TextDecoder();

/** Accepts the secret as the bare token or as JSON `{"token": "..."}` (the console's key/value form). */
function tokenOf(secretId: string, raw: string): string {
  const trimmed = raw.trim();
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      throw new TokenMissingError(`secret ${secretId} looks like JSON but cannot be parsed`);
    }
    const token =
      typeof parsed === 'object' && parsed !== null
        ? (parsed as Record<string, unknown>)['token']
        : undefined;
    if (typeof token !== 'string' || token.trim() === '') {
      throw new TokenMissingError(`secret ${secretId} is JSON without a non-empty "token" string`);
    }
    return token.trim();
  }
  if (trimmed === '') throw new TokenMissingError(`secret ${secretId} is empty`);
  return trimmed;
}

function isNamed(error: unknown, name: string): boolean {
  return error instanceof Error && error.name === name;
}

export function tokenFromSecret(secretId: string, options: TokenFromSecretOptions = {}): TokenSource {
  const maxAge = options.maxAgeSeconds ?? 300;
  // Concurrent first callers share one fetch instead of each missing the still-empty cache.
  let inFlight: Promise<string> | undefined;
  // Set when the service refused the token: the cached copy may be the stale one.
  let forceFetch = false;

  const fetchToken = async (): Promise<string> => {
    const provider = options.provider ?? secretsProvider();
    let value: string | Uint8Array | undefined;
    try {
      value = await provider.get(secretId, { maxAge, throwOnMissing: true, forceFetch });
      forceFetch = false;
    } catch (error) {
      // Error messages of the SDK name the secret id at most; the value never reaches them.
      if (isNamed(error, 'ParameterNotFoundError')) {
        throw new TokenMissingError(`secret ${secretId} does not exist or has no value`);
      }
      const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
      if (isNamed(cause, 'ResourceNotFoundException')) {
        throw new TokenMissingError(`secret ${secretId} does not exist or has no value`);
      }
      throw new RetryableError('TOKEN_UNAVAILABLE', `could not read secret ${secretId}`, { cause });
    }
    if (value === undefined) throw new TokenMissingError(`secret ${secretId} has no value`);
    return tokenOf(secretId, typeof value === 'string' ? value : decoder.decode(value));
  };

  const source = () => {
    inFlight ??= fetchToken().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
  return Object.assign(source, {
    invalidate: () => {
      forceFetch = true;
    },
  });
}
