import type { ControlRoute } from '../aws-endpoint.ts';
import { LOCAL_OPERATOR_CREDENTIALS } from '../iam/credentials.ts';
import type { LocalRuntime } from '../runtime.ts';

/**
 * The `/_local/*` endpoints of serve mode: the runtime's own views and actions over HTTP, for the
 * commands and tools that run beside a served connector (`npm run invoke`, the operator commands
 * with `--local`).
 */
export function controlRoutes(runtime: LocalRuntime): ControlRoute[] {
  return [
    {
      method: 'POST',
      path: '/_local/invoke',
      handle: async (body) => {
        const request = isRecord(body) ? body : {};
        if (typeof request['function'] !== 'string')
          throw new Error('expected {"function": name, "event"?: ...}');
        return runtime.invoke(request['function'], request['event']);
      },
    },
    {
      method: 'GET',
      path: '/_local/health',
      handle: () => ({
        status: 'ok',
        sandbox: runtime.sandboxUrl,
        dynamodb: runtime.dynamoEndpoint,
        events: runtime.eventsEndpoint,
        tableName: runtime.tableName,
        busName: runtime.busName,
        tokenSecretName: runtime.tokenSecretName,
        deadLetters: runtime.dlq().length,
        deniedCalls: runtime.denied().length,
        delivery: {
          seed: runtime.delivery.seed,
          ordered: runtime.delivery.ordered,
          ...runtime.delivery.counts(),
        },
      }),
    },
    { method: 'GET', path: '/_local/outbound', handle: () => runtime.outbound() },
    // What the operator commands (npm run signups / resolve-signup -- --local) run with: the drift
    // watch's environment as the template gives it, with the local endpoints, and the operator's
    // own credentials rather than the function's role (an operator is not the drift watch; the
    // local IAM enforcement does not check the developer's credentials).
    {
      method: 'GET',
      path: '/_local/environment',
      handle: () => {
        const { AWS_SESSION_TOKEN: _session, ...environment } = runtime.functionEnvironment('drift-watch');
        return {
          function: runtime.functionNamed('drift-watch').name,
          environment: {
            ...environment,
            AWS_ACCESS_KEY_ID: LOCAL_OPERATOR_CREDENTIALS.accessKeyId,
            AWS_SECRET_ACCESS_KEY: LOCAL_OPERATOR_CREDENTIALS.secretAccessKey,
          },
        };
      },
    },
    // Every AWS call the template's IAM denied so far: [{principal, action, resource, reason, at}].
    {
      method: 'GET',
      path: '/_local/denied',
      handle: () =>
        runtime.denied().map(({ principal, action, resource, reason, at }) => ({
          principal,
          action,
          resource,
          reason,
          at,
        })),
    },
    { method: 'GET', path: '/_local/dlq', handle: () => runtime.dlq() },
    // Answers once nothing is queued, in flight, retried or replayed (what waitForIdle waits for):
    // a client that published something can then read settled outbound events and dead letters.
    {
      method: 'GET',
      path: '/_local/idle',
      handle: async () => {
        await runtime.waitForIdle();
        return { idle: true };
      },
    },
    { method: 'GET', path: '/_local/resources', handle: () => runtime.resources() },
    {
      method: 'POST',
      path: '/_local/trial-watch',
      handle: async () => ({ status: 'done', result: (await runtime.runTrialWatch()) ?? null }),
    },
    {
      method: 'POST',
      path: '/_local/scheduled',
      handle: async () => ({ status: 'done', runs: await runtime.runSchedules() }),
    },
  ];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
