import { createHash } from 'node:crypto';

/**
 * Who calls a local AWS endpoint. On Lambda a function's SDK signs every request with its execution
 * role's temporary credentials (the runtime sets AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
 * AWS_SESSION_TOKEN: Lambda Developer Guide, "Defined runtime environment variables"), and AWS knows
 * the caller from the access key id in the request's SigV4 `Authorization` header ("Credential=<access
 * key id>/<date>/<region>/<service>/aws4_request": IAM user guide, "Elements of an AWS API request
 * signature"). Locally each function gets credentials of its own whose access key id names its role
 * and function, and the endpoints read it back the same way; an operator command signing with
 * `LOCAL.operator.<command>` is that command's documented operator (operators.ts). Any other key (a
 * test's client, `aws` with `AWS_ACCESS_KEY_ID=local`) is the developer's own, and is not checked:
 * the template says nothing about who the developer is.
 */

export interface FunctionCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string;
}

export interface Caller {
  /** The function's name, or the operator command's: the role session's name. */
  readonly functionName: string;
  readonly roleArn: string;
}

/** The developer's credentials in a local run (never checked): what every non-function caller uses. */
export const LOCAL_OPERATOR_CREDENTIALS = {
  accessKeyId: 'AKIALOCALRUNTIME0000',
  secretAccessKey: 'local-runtime-secret-access-key',
} as const;

export class CallerRegistry {
  private readonly byKey = new Map<string, Caller>();
  private readonly byFunction = new Map<string, FunctionCredentials>();

  /** The credentials of `functionName`, running as `roleArn` (made once per function). */
  register(functionName: string, roleArn: string): FunctionCredentials {
    const existing = this.byFunction.get(functionName);
    if (existing) return existing;
    const roleName = roleArn.slice(roleArn.lastIndexOf('/') + 1);
    const credentials = {
      // Names its role and function; the SDK puts it in the signature's scope as it is.
      accessKeyId: `LOCAL.${roleName}.${functionName}`,
      secretAccessKey: createHash('sha256').update(`secret:${functionName}`).digest('hex').slice(0, 40),
      sessionToken: createHash('sha256').update(`session:${functionName}`).digest('base64'),
    };
    this.byFunction.set(functionName, credentials);
    this.byKey.set(credentials.accessKeyId, { functionName, roleArn });
    return credentials;
  }

  /**
   * An operator command's principal (operators.ts): requests signed with `accessKeyId` are made as
   * `roleArn`, in a session named after the command.
   */
  registerOperator(accessKeyId: string, command: string, roleArn: string): void {
    this.byKey.set(accessKeyId, { functionName: command, roleArn });
  }

  credentialsOf(functionName: string): FunctionCredentials | undefined {
    return this.byFunction.get(functionName);
  }

  /** The function (or operator command) whose credentials signed a request; undefined for anyone else. */
  callerOf(authorization: string | undefined): Caller | undefined {
    const key = accessKeyIdOf(authorization);
    return key === undefined ? undefined : this.byKey.get(key);
  }

  get size(): number {
    return this.byFunction.size;
  }
}

/** The access key id of a SigV4 `Authorization` header (`… Credential=AKID/20250101/us-east-1/sqs/aws4_request, …`). */
export function accessKeyIdOf(authorization: string | undefined): string | undefined {
  const match = /Credential=([^/,\s]+)\//.exec(authorization ?? '');
  return match?.[1];
}
