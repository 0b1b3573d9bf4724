import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import type { DependencyOptions } from '#functions/runtime/dependencies.ts';
import type { LambdaHandler, LocalFunction } from './aws/lambda.ts';
import type { FunctionHost } from './deployment.ts';
import { functionBundle } from './function-bundles.ts';
import { invocationScope } from './handler-output.ts';

/**
 * Every function of the template runs in this one process (fast, debuggable, and the chaos run
 * and the bench can watch the handlers). A function's module is imported on its first invocation
 * (its cold start), with the process environment set to what Lambda would give it: the template's
 * variables plus the runtime variables (`runtimeEnvironment`). Modules are imported one at a time,
 * because the handlers read their configuration when they load.
 *
 * Each execution environment imports the function's deployed bundle afresh
 * (local/function-bundles.ts: the esbuild call `cdk deploy` makes), as on Lambda each environment
 * is a process of its own that loads the bundle: one module instance per environment, so a
 * function has as many as it ran invocations at once. Shared module instances would mix state
 * between invocations running at once: the Powertools logger's record keys (one invocation's
 * error line carrying another's eventId and detail-type), the metrics buffer, the clients' caches.
 * What one process still cannot give each function: variables read after load see the last
 * environment started.
 *
 * `shared` modules instead load each source file once for the whole process, as a plain import
 * does (the function's own module once per host: `hostsMade`), and run every invocation of a
 * function in that one instance: for a tool that instruments
 * the handlers' own clients from outside (the bench's request recorder counts DynamoDB reads
 * through the shared client's middleware). Concurrent invocations then share the logger's record
 * keys.
 *
 * Every call of a function's handler runs in that function's invocation scope (handler-output.ts),
 * however it is called (an event source, `invoke`, a test calling the handler itself): its log
 * lines name the function, and its SDK calls sign with its execution role's credentials
 * (runtime/lambda-environment.ts).
 *
 * `dependencyOptions` (the chaos run's crash points and budget observer) reach a function through
 * its module's `createHandler`, where it has one (functions/<name>/handler.ts); a function without
 * it runs as the template names it.
 */
export type FunctionModules = 'per-environment' | 'shared';

/**
 * Execution environments started in this process, by every host: each environment's bundle URL
 * carries its number, so no two environments share a module instance, not even two of one
 * function in two local runtimes started one after the other (Node keeps a module per URL for the
 * life of the process: a second runtime counting from 1 again would be handed the first one's
 * modules, with the first runtime's table, endpoints and clients).
 */
let environmentsStarted = 0;

/**
 * Hosts made in this process: a `shared` host imports each function's source with its own number
 * in the URL, so the function's module (its handler, and the settings and collaborators it builds
 * from the variables of the runtime that first ran it) is that runtime's alone. The modules it
 * imports stay one per process, as a plain import has them: the Powertools logger and metrics
 * (functions/runtime/observability.ts) and the SDK clients a tool instruments (one per endpoint,
 * functions/runtime/clients/). Test files share worker processes (vitest.config.ts), so a runtime
 * started after another in the same process must not be handed the first one's handler.
 */
let hostsMade = 0;

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

export class InProcessFunctionHost implements FunctionHost {
  private readonly functions = new Map<string, Promise<LambdaHandler>>();
  private chain: Promise<unknown> = Promise.resolve();
  /** Each function's bundle, found (or built) at its first environment: later ones run the same code. */
  private readonly bundles = new Map<string, Promise<string>>();
  private readonly host = ++hostsMade;

  constructor(
    private readonly runtimeEnvironment: (fn: Omit<LocalFunction, 'handler'>) => Record<string, string>,
    private readonly modules: FunctionModules = 'per-environment',
    private readonly dependencyOptions?: DependencyOptions,
    /**
     * A function's own deployed bundle when the template comes with one (a cloud assembly's asset,
     * `--assembly`), instead of the project's bundle of its source; undefined: the project's.
     */
    private readonly ownBundle?: (fn: Omit<LocalFunction, 'handler'>) => string | undefined,
  ) {}

  /**
   * The function's handler: each invocation runs in an idle environment of the function, or in a
   * new one (a cold start, inside the invocation as on Lambda) when all are busy, so concurrent
   * invocations never share module state.
   */
  load(fn: Omit<LocalFunction, 'handler'>): Promise<LambdaHandler> {
    let loading = this.functions.get(fn.name);
    if (!loading) {
      loading = this.start(fn).then((first) => {
        if (this.modules === 'shared') {
          return (event: unknown, context: Context) =>
            invocationScope.run(fn.name, () => first(event, context));
        }
        const idle: LambdaHandler[] = [first];
        return (event: unknown, context: Context) =>
          invocationScope.run(fn.name, async () => {
            const handler = idle.pop() ?? (await this.start(fn));
            try {
              return await handler(event, context);
            } finally {
              idle.push(handler);
            }
          });
      });
      // A failed cold start is retried on the next invocation, as Lambda does with a new environment.
      loading.catch(() => this.functions.delete(fn.name));
      this.functions.set(fn.name, loading);
    }
    return loading;
  }

  /** A new environment: the function's deployed bundle imported afresh (or, `shared`, its source once). */
  private start(fn: Omit<LocalFunction, 'handler'>): Promise<LambdaHandler> {
    const started = this.chain.then(async () => {
      let url: string;
      const own = this.ownBundle?.(fn);
      if (this.modules === 'shared') {
        url = `${pathToFileURL(own ?? resolve(PROJECT_ROOT, fn.entry)).href}?host=${this.host}`;
      } else {
        // Built (or found) before the environment's variables are set: building reads no variable.
        const key = own ?? fn.entry;
        let bundle = this.bundles.get(key);
        if (!bundle) {
          bundle = own === undefined ? functionBundle(fn.entry) : Promise.resolve(own);
          // A failed build is tried again at the next cold start.
          bundle.catch(() => this.bundles.delete(key));
          this.bundles.set(key, bundle);
        }
        environmentsStarted += 1;
        const environment = environmentsStarted;
        // Another URL for the same file is another module instance: this environment's own.
        url = `${pathToFileURL(await bundle).href}?environment=${environment}`;
      }
      Object.assign(process.env, fn.environment, this.runtimeEnvironment(fn));
      const module = (await import(url)) as Record<string, unknown>;
      const handler = module[fn.handlerExport];
      if (typeof handler !== 'function') {
        throw new Error(
          `Runtime.HandlerNotFound: ${fn.entry} does not export a function named ${fn.handlerExport}`,
        );
      }
      const createHandler = module['createHandler'];
      if (this.dependencyOptions && typeof createHandler === 'function') {
        return (createHandler as (options: DependencyOptions) => LambdaHandler)(this.dependencyOptions);
      }
      return handler as LambdaHandler;
    });
    this.chain = started.catch(() => undefined);
    return started;
  }
}
