/**
 * What the local AWS services ask before they act on a principal's behalf: EventBridge delivering
 * to a rule target, a pipe reading its source and writing its target, Lambda polling a queue for an
 * event source mapping. The modules of local/aws/ know nothing of IAM: the deployment hands each of
 * them the checks its resources need (local/iam/ answers them from the template's policies).
 *
 * A check gives undefined when the call is allowed, or AWS's AccessDenied message when it is not
 * ("User: … is not authorized to perform: … on resource: … because …"): at once when the decision
 * is known, else as a promise (a delivery made in order stays synchronous once its decision is known).
 */
export type AccessCheck = () => string | undefined | Promise<string | undefined>;

/** The error a local service fails with when a check denies its call. */
export class AccessDeniedError extends Error {
  readonly code = 'AccessDenied';

  constructor(message: string) {
    super(message);
    this.name = 'AccessDeniedError';
  }
}
