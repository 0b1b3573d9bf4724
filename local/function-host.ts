import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { LambdaHandler, LocalFunction } from './aws/lambda.ts';
import type { FunctionHost } from './deployment.ts';

/**
 * Every function of the template runs in this one process (fast, debuggable, and the chaos run
 * and the bench can watch the handlers). A function's module is imported once, on its first
 * invocation (its cold start), with the process environment set to what Lambda would give it:
 * the template's variables plus the runtime variables (`runtimeEnvironment`). Modules are
 * imported one at a time, because the handlers read their configuration when they load.
 *
 * What one process cannot give each function: variables read after load see the last function
 * imported, and modules every function shares are loaded once, with the first function's
 * variables. The connector's handlers read their own settings at load (ROUTED_DETAIL_TYPES, ...);
 * the shared Powertools logger and metrics keep the first function's POWERTOOLS_SERVICE_NAME, so
 * local log lines name the function from the invocation (handler-output.ts).
 */
const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

export class InProcessFunctionHost implements FunctionHost {
  private readonly loaded = new Map<string, Promise<LambdaHandler>>();
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly runtimeEnvironment: (fn: Omit<LocalFunction, 'handler'>) => Record<string, string>,
  ) {}

  load(fn: Omit<LocalFunction, 'handler'>): Promise<LambdaHandler> {
    const key = `${fn.entry}#${fn.handlerExport}`;
    let loading = this.loaded.get(key);
    if (!loading) {
      loading = this.chain.then(async () => {
        Object.assign(process.env, fn.environment, this.runtimeEnvironment(fn));
        const module = (await import(pathToFileURL(resolve(PROJECT_ROOT, fn.entry)).href)) as Record<
          string,
          unknown
        >;
        const handler = module[fn.handlerExport];
        if (typeof handler !== 'function') {
          throw new Error(
            `Runtime.HandlerNotFound: ${fn.entry} does not export a function named ${fn.handlerExport}`,
          );
        }
        return handler as LambdaHandler;
      });
      // A failed cold start is retried on the next invocation, as Lambda does with a new environment.
      loading.catch(() => this.loaded.delete(key));
      this.loaded.set(key, loading);
      this.chain = loading.catch(() => undefined);
    }
    return loading;
  }
}
