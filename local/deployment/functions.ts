import { HANDLER_SOURCE_METADATA, type HandlerSource } from '#lib/handler-source.ts';
import type { LocalFunction } from '../aws/lambda.ts';
import type { DeployOptions } from '../deployment.ts';
import { numberOr, type TemplateReader } from './template-reader.ts';

/**
 * The template's functions (AWS::Lambda::Function), by name: the source module named in the
 * template's metadata, run with the template's settings.
 */
export function createFunctions(
  template: TemplateReader,
  options: Pick<DeployOptions, 'region' | 'host' | 'environmentSubstitutions' | 'access'>,
): Map<string, LocalFunction> {
  const functions = new Map<string, LocalFunction>();
  for (const resource of template.model.ofType('AWS::Lambda::Function')) {
    const source = resource.metadata[HANDLER_SOURCE_METADATA] as HandlerSource | undefined;
    const handler = template.resolved(resource, 'Handler');
    const runtime = template.resolved(resource, 'Runtime');
    if (!source) {
      template.fail(
        resource,
        `no ${HANDLER_SOURCE_METADATA} metadata: the local runtime cannot tell which module to run`,
      );
      continue;
    }
    if (typeof handler !== 'string' || handler.split('.').pop() !== source.handlerExport) {
      template.fail(
        resource,
        `Handler ${String(handler)} does not name the export ${source.handlerExport} of ${source.entry}`,
      );
      continue;
    }
    if (typeof runtime !== 'string' || !runtime.startsWith('nodejs')) {
      template.fail(resource, `Runtime ${String(runtime)} is not a Node.js runtime`);
      continue;
    }
    const variables = (
      template.resolved(resource, 'Environment') as { Variables?: Record<string, unknown> } | undefined
    )?.Variables;
    const environment = Object.fromEntries(
      Object.entries(variables ?? {}).map(([key, value]) => [
        key,
        (options.environmentSubstitutions ?? []).reduce(
          (text, [from, to]) => text.replaceAll(from, to),
          String(value),
        ),
      ]),
    );
    const timeoutSeconds = numberOr(template.resolved(resource, 'Timeout'), 3);
    const memoryMb = numberOr(template.resolved(resource, 'MemorySize'), 128);
    const definition: Omit<LocalFunction, 'handler'> = {
      logicalId: resource.logicalId,
      name: resource.name,
      arn: resource.arn,
      entry: source.entry,
      handlerExport: source.handlerExport,
      timeoutSeconds,
      memoryMb,
      environment,
      settings: {
        functionName: resource.name,
        region: options.region,
        timeoutMs: timeoutSeconds * 1000,
        memoryMb,
      },
    };
    // Where Lambda writes the function's logs: LoggingConfig.LogGroup, else /aws/lambda/<name>
    // (Lambda Developer Guide, "Configuring advanced logging controls": the default log group).
    const logGroup = (template.resolved(resource, 'LoggingConfig') as { LogGroup?: unknown } | undefined)
      ?.LogGroup;
    const logs = options.access?.functionLogs(
      resource.name,
      typeof logGroup === 'string' ? logGroup : `/aws/lambda/${resource.name}`,
    );
    functions.set(resource.name, {
      ...definition,
      handler: () => {
        // Each invocation writes logs; a denial is recorded (the logs are lost), the invocation goes on.
        if (logs) void Promise.resolve(logs()).catch(() => undefined);
        return options.host.load(definition);
      },
    });
  }
  return functions;
}

/** The function a property names, by its name or its ARN (a rule target's Arn, a mapping's FunctionName). */
export function functionByRef(
  functions: ReadonlyMap<string, LocalFunction>,
  value: unknown,
): LocalFunction | undefined {
  return [...functions.values()].find((fn) => fn.name === value || fn.arn === value);
}
