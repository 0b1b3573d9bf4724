import { randomBytes, randomUUID } from 'node:crypto';
import { AwsApiError, type Operation } from '../aws-endpoint.ts';

/**
 * Secrets Manager for the secret(s) the template names ("GetSecretValue", "PutSecretValue" and
 * "CreateSecret" in the Secrets Manager API reference): a secret is found by name or ARN; a put
 * adds a version labelled AWSCURRENT; a ClientRequestToken already used with the same value is
 * ignored and with another value refused; a secret created without a value has no version, and
 * GetSecretValue on it answers ResourceNotFoundException. So "deploy first, set the token later"
 * can be rehearsed locally.
 */

interface SecretVersion {
  readonly id: string;
  readonly value: string;
  readonly created: number;
}

interface StoredSecret {
  readonly name: string;
  readonly arn: string;
  versions: SecretVersion[];
}

export class LocalSecrets {
  private readonly secrets = new Map<string, StoredSecret>();
  private readonly region: string;
  private readonly account: string;
  /** Names the template refers to: only these may be created. */
  private readonly known: Set<string>;

  constructor(options: { region: string; account: string; knownNames: Iterable<string> }) {
    this.region = options.region;
    this.account = options.account;
    this.known = new Set(options.knownNames);
  }

  /** A secret of the template, as CloudFormation creates it (with a value, or none). */
  define(name: string, arn: string, initialValue?: string): void {
    this.known.add(name);
    this.secrets.set(name, {
      name,
      arn,
      versions:
        initialValue === undefined ? [] : [{ id: randomUUID(), value: initialValue, created: Date.now() }],
    });
  }

  /** The secret's name and ARN, found by name, ARN or ARN without its suffix. */
  describe(nameOrArn: string): { readonly name: string; readonly arn: string } | undefined {
    const secret = this.find(nameOrArn);
    return secret ? { name: secret.name, arn: secret.arn } : undefined;
  }

  /** The current value, for tests and tools (never logged). */
  current(nameOrArn: string): string | undefined {
    return this.find(nameOrArn)?.versions.at(-1)?.value;
  }

  /** Sets a new current value (what PutSecretValue does), e.g. the sandbox token at start-up. */
  put(nameOrArn: string, value: string): void {
    const secret = this.find(nameOrArn);
    if (!secret)
      throw new AwsApiError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    secret.versions.push({ id: randomUUID(), value, created: Date.now() });
  }

  /** A random value like the one a generated secret starts with (never a valid token). */
  static placeholder(): string {
    return randomBytes(24).toString('base64url');
  }

  operations(): Record<string, Operation> {
    return {
      'secretsmanager.GetSecretValue': (body) => {
        const secret = this.required(body['SecretId']);
        const version = secret.versions.at(-1);
        if (!version) {
          throw new AwsApiError(
            'ResourceNotFoundException',
            "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT",
          );
        }
        return {
          ARN: secret.arn,
          Name: secret.name,
          VersionId: version.id,
          SecretString: version.value,
          VersionStages: ['AWSCURRENT'],
          CreatedDate: Math.floor(version.created / 1000),
        };
      },
      'secretsmanager.PutSecretValue': (body) => {
        const secret = this.required(body['SecretId']);
        const value = secretString(body);
        const token =
          typeof body['ClientRequestToken'] === 'string' ? body['ClientRequestToken'] : randomUUID();
        const existing = secret.versions.find((version) => version.id === token);
        if (existing && existing.value !== value) {
          throw new AwsApiError(
            'ResourceExistsException',
            'You can’t modify an existing version, you can only create a new version.',
          );
        }
        if (!existing) secret.versions.push({ id: token, value, created: Date.now() });
        return { ARN: secret.arn, Name: secret.name, VersionId: token, VersionStages: ['AWSCURRENT'] };
      },
      'secretsmanager.CreateSecret': (body) => {
        const name = body['Name'];
        if (typeof name !== 'string' || name === '')
          throw new AwsApiError('InvalidParameterException', 'Name is required.');
        if (this.secrets.has(name)) {
          throw new AwsApiError(
            'ResourceExistsException',
            `The operation failed because the secret ${name} already exists.`,
          );
        }
        if (!this.known.has(name)) {
          throw new AwsApiError(
            'InvalidRequestException',
            `the local runtime only holds the secrets the template names (${[...this.known].join(', ')})`,
          );
        }
        const arn = `arn:aws:secretsmanager:${this.region}:${this.account}:secret:${name}-LOCAL1`;
        const value = body['SecretString'] === undefined ? undefined : secretString(body);
        this.define(name, arn, value);
        const secret = this.secrets.get(name) as StoredSecret;
        return { ARN: arn, Name: name, ...(secret.versions[0] ? { VersionId: secret.versions[0].id } : {}) };
      },
    };
  }

  private required(secretId: unknown): StoredSecret {
    if (typeof secretId !== 'string' || secretId.length === 0) {
      throw new AwsApiError('InvalidParameterException', 'SecretId is required.');
    }
    const secret = this.find(secretId);
    if (!secret)
      throw new AwsApiError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return secret;
  }

  // Callers may name a secret by its name, its full ARN, or an ARN without the random suffix.
  private find(secretId: string): StoredSecret | undefined {
    for (const secret of this.secrets.values()) {
      if (
        secret.name === secretId ||
        secret.arn === secretId ||
        secretId.endsWith(`:secret:${secret.name}`)
      ) {
        return secret;
      }
    }
    return undefined;
  }
}

function secretString(body: Record<string, unknown>): string {
  const value = body['SecretString'];
  if (typeof value !== 'string') {
    throw new AwsApiError(
      'InvalidParameterException',
      'SecretString is required (SecretBinary is not supported locally).',
    );
  }
  return value;
}
